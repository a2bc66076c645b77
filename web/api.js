// The dashboard talks to Ferrum only through its public HTTP API, with the session's token.

const TOKEN_KEY = 'ferrum.token';
const PROJECT_KEY = 'ferrum.project';
const PROJECT_NAME_KEY = 'ferrum.project-name';

export const session = {
  get token() {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  set token(value) {
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  },
  get projectId() {
    return sessionStorage.getItem(PROJECT_KEY);
  },
  set projectId(value) {
    if (value) sessionStorage.setItem(PROJECT_KEY, value);
    else sessionStorage.removeItem(PROJECT_KEY);
    sessionStorage.removeItem(PROJECT_NAME_KEY);
  },
  /** The current project's name, once looked up (see app.js). */
  get projectName() {
    return sessionStorage.getItem(PROJECT_NAME_KEY);
  },
  set projectName(value) {
    if (value) sessionStorage.setItem(PROJECT_NAME_KEY, value);
    else sessionStorage.removeItem(PROJECT_NAME_KEY);
  },
  clear() {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(PROJECT_KEY);
    sessionStorage.removeItem(PROJECT_NAME_KEY);
  },
};

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** Calls the API; resolves to the parsed body (or text), rejects with ApiError carrying `msg`. */
export async function api(method, path, body, { auth = true, accept } = {}) {
  const headers = {};
  if (auth && session.token) headers.Authorization = `OAuth ${session.token}`;
  if (accept) headers.Accept = accept;
  const init = { method, headers };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let parsed = text;
  if ((response.headers.get('content-type') || '').includes('json') && text) parsed = JSON.parse(text);
  if (!response.ok) {
    const message = (parsed && parsed.msg) || (parsed && parsed.error && parsed.error.message) || response.statusText;
    throw new ApiError(response.status, message);
  }
  return parsed;
}

/** Path under the current project: project('/queues') → /3/projects/<id>/queues with the API prefix given. */
export function projectPath(prefix, rest) {
  return `${prefix}/projects/${encodeURIComponent(session.projectId)}${rest}`;
}
