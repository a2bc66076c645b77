import type { HttpClient } from './http.js';

let counter = 0;

/** Creates a project (with `client`, whose user owns it) named `<prefix>-<time>`; returns its id. */
export async function createProject(client: HttpClient, prefix: string): Promise<string> {
  const created = await client.post('/1/projects', { name: `${prefix}-${Date.now()}` });
  if (created.status !== 201) throw new Error(`project create failed: ${created.status} ${created.text}`);
  return created.body.id as string;
}

/** Creates a user (with the admin client) and a token of its own; returns both. */
export async function createUserWithToken(admin: HttpClient, emailPrefix = 'user') {
  counter += 1;
  const email = `${emailPrefix}-${process.pid}-${counter}-${Date.now()}@example.com`;
  const password = `pw-${counter}`;
  const created = await admin.post('/1/users', { email, password });
  if (created.status !== 201) throw new Error(`user create failed: ${created.status} ${created.text}`);
  const token = await admin.post('/1/tokens', { user_id: created.body.user_id, name: 'test' });
  if (token.status !== 201) throw new Error(`token create failed: ${token.status} ${token.text}`);
  return {
    id: created.body.user_id as string,
    email,
    password,
    token: token.body.token as string,
    tokenId: token.body._id as string,
    http: admin.withToken(token.body.token as string),
  };
}
