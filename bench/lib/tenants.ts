// Tenants of the isolation benchmark: users with a project each, made through the API.

export interface Tenant {
  token: string;
  projectId: string;
}

/** One API request with `token`; the parsed JSON answer, or an error naming the status. */
export async function api(info: { url: string }, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(info.url + path, {
    method,
    headers: { authorization: `OAuth ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
}

/**
 * Sends one request as `tenant` (`body` as given: JSON text) and reads the answer through; its
 * status (a 5xx fails the scenario: the server must hold).
 */
export async function sendAs(info: { url: string }, tenant: Tenant, method: string, path: string, body: string) {
  const response = await fetch(info.url + path, {
    method,
    headers: { authorization: `OAuth ${tenant.token}`, 'content-type': 'application/json' },
    body,
  });
  await response.arrayBuffer();
  if (response.status >= 500) throw new Error(`${method} ${path}: ${response.status}`);
  return response.status;
}

/** A new user (made with the admin `token` of `info`) with a project of its own. */
export async function newTenant(info: { url: string; token: string }, name: string): Promise<Tenant> {
  const user = await api(info, info.token, 'POST', '/1/users', {
    email: `${name}-${process.pid}-${Date.now()}@example.com`,
    password: `${name}-password`,
  });
  const token = await api(info, info.token, 'POST', '/1/tokens', { user_id: user!.user_id, name });
  const project = await api(info, token!.token as string, 'POST', '/1/projects', { name });
  return { token: token!.token as string, projectId: (project!.id ?? project!._id) as string };
}
