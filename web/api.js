// @ts-check
// The dashboard talks to Ferrum only through its public HTTP API. It is signed in by an
// HttpOnly session cookie (POST /ui/session) that no script can read: this file keeps no token.
// It is the shared client's (client/endpoints.js) browser transport.
import { apiClient } from '../client/endpoints.js';

const SIGNED_IN_KEY = 'ferrum.signed-in';
const PROJECT_KEY = 'ferrum.project';
const PROJECT_NAME_KEY = 'ferrum.project-name';

export const session = {
  /** Whether this tab signed in (the cookie itself is out of the script's reach). */
  get signedIn() {
    return sessionStorage.getItem(SIGNED_IN_KEY) === '1';
  },
  set signedIn(value) {
    if (value) sessionStorage.setItem(SIGNED_IN_KEY, '1');
    else sessionStorage.removeItem(SIGNED_IN_KEY);
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
    sessionStorage.removeItem(SIGNED_IN_KEY);
    sessionStorage.removeItem(PROJECT_KEY);
    sessionStorage.removeItem(PROJECT_NAME_KEY);
  },
};

/** Hands `token` to the server once, which keeps it in the session cookie; the token is not kept here. */
export async function startSession(token) {
  await apiClient(browserTransport(token)).identity.startSession();
  session.signedIn = true;
}

/** Forgets the session here and on the server (the cookie is cleared). */
export async function endSession() {
  session.clear();
  await apiClient(browserTransport())
    .identity.endSession()
    .catch(() => undefined);
}

export class ApiError extends Error {
  /** @param {number} status @param {string} message */
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * Calls the API; resolves to the parsed body (or text), rejects with ApiError carrying `msg`.
 * Pages call it through client.js over the shared client, which names every path and types its answer.
 * @param {string} method @param {string} path @param {unknown} [body]
 * @param {{ token?: string, accept?: string }} [options]
 * @returns {Promise<any>}
 */
export async function api(method, path, body, { token, accept } = {}) {
  // The header tells the server this request is the dashboard's own (no other page can add it).
  /** @type {Record<string, string>} */
  const headers = { 'X-Ferrum-Dashboard': '1' };
  if (token) headers.Authorization = `OAuth ${token}`;
  if (accept) headers.Accept = accept;
  /** @type {RequestInit} */
  const init = { method, headers };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  /** @type {any} */
  let parsed = text;
  if ((response.headers.get('content-type') || '').includes('json') && text) parsed = JSON.parse(text);
  if (!response.ok) {
    const message = (parsed && parsed.msg) || (parsed && parsed.error && parsed.error.message) || response.statusText;
    throw new ApiError(response.status, message);
  }
  return parsed;
}

/** `?a=1&b=2` from the query's defined values ('' when none). */
function queryString(/** @type {import('../client/transport.js').Query} */ query = {}) {
  const defined = Object.entries(query).filter(([, value]) => value !== undefined && value !== '');
  return defined.length ? `?${new URLSearchParams(defined.map(([k, v]) => [k, String(v)]))}` : '';
}

/**
 * The shared client's transport in the browser: the session cookie (or `token`, once, to start
 * the session), the dashboard's header, errors as ApiError; the project is the session's.
 * @param {string} [token] @returns {import('../client/transport.js').Transport}
 */
export function browserTransport(token) {
  return {
    json: (method, path, { query, json } = {}) => api(method, path + queryString(query), json, { token }),
    text: (method, path, { query } = {}) =>
      api(method, path + queryString(query), undefined, { token, accept: 'text/plain' }),
    projectId: () => session.projectId || '',
  };
}
