import { describe, expect, it } from 'vitest';
import { createUserWithToken } from '../../helpers/identity.js';
import { useTestServer } from '../../helpers/test-file.js';

const server = useTestServer();
/** POST /1/authentication with no token, as a user signing in sends it. */
const signIn = (email: string, password: string) =>
  server.http.post('/1/authentication', { email, password }, { token: null });
const noSecrets = (body: unknown) => {
  const text = JSON.stringify(body);
  expect(text).not.toMatch(/password/i);
  expect(text).not.toContain('scrypt');
};

describe('users', () => {
  it('creates a user with 201 and never echoes the password', async () => {
    const res = await server.http.post('/1/users', { email: 'alice@example.com', password: 's3cret!' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: 'alice@example.com', status: 'active', tokens: [], admin: false });
    expect(res.body.user_id).toMatch(/^[0-9a-f]{24}$/);
    noSecrets(res.body);
  });

  it('refuses an e-mail already taken, in any letter case', async () => {
    await server.http.post('/1/users', { email: 'taken@example.com', password: 'x' });
    const res = await server.http.post('/1/users', { email: 'TAKEN@example.com', password: 'y' });
    expect(res.status).toBe(409);
    expect(res.body.msg).toContain('already taken');
  });

  it('answers bad input with 4xx naming the field', async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ password: 'x' }, 406, 'email is required'],
      [{ email: 'a@example.com' }, 406, 'password is required'],
      [{}, 406, 'is required'],
      [{ email: 42, password: 'x' }, 400, 'email must be a string'],
      [{ email: 'a@example.com', password: ['x'] }, 400, 'password must be a string'],
      [{ email: 'not-an-email', password: 'x' }, 400, 'not a valid e-mail'],
      [{ email: 'empty@example.com', password: '' }, 400, 'password must not be empty'],
      [[1, 2], 400, 'body must be an object'],
    ];
    for (const [body, status, msg] of cases) {
      const res = await server.http.post('/1/users', body);
      expect({ body, status: res.status }).toEqual({ body, status });
      expect(res.body.msg).toContain(msg);
    }
  });

  it('refuses user management to non-admin tokens', async () => {
    const bob = await createUserWithToken(server.http);
    expect((await bob.http.post('/1/users', { email: 'x@example.com', password: 'x' })).status).toBe(403);
    expect((await bob.http.get('/1/users')).status).toBe(403);
    const other = await createUserWithToken(server.http);
    // another user's account is answered as if it did not exist
    expect((await bob.http.get(`/1/users/${other.id}`)).status).toBe(404);
    expect((await bob.http.get(`/1/users/${encodeURIComponent(other.email)}`)).status).toBe(404);
    expect((await bob.http.delete(`/1/users/${other.id}`)).status).toBe(404);
  });

  it('gets a user by id or by e-mail, 404 for unknown', async () => {
    const carol = await createUserWithToken(server.http, 'carol');
    const byId = await server.http.get(`/1/users/${carol.id}`);
    const byEmail = await server.http.get(`/1/users/${encodeURIComponent(carol.email)}`);
    expect(byId.status).toBe(200);
    expect(byEmail.body).toEqual(byId.body);
    // token secrets are shown once, at creation, never in a read
    expect(byId.body.tokens).toEqual([]);
    expect(byId.text).not.toContain(carol.token);
    noSecrets(byId.body);
    // a user may read itself
    expect((await carol.http.get(`/1/users/${carol.id}`)).status).toBe(200);
    const missing = await server.http.get('/1/users/000000000000000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body.msg).toBe('User not found');
  });

  it('pages with previous and per_page, clamping per_page to 100', async () => {
    for (let i = 0; i < 5; i++) await createUserWithToken(server.http, 'page');
    const all = await server.http.get('/1/users?per_page=100');
    const ids: string[] = all.body.users.map((u: { user_id: string }) => u.user_id);
    expect(ids).toEqual([...ids].sort());
    const first = await server.http.get('/1/users?per_page=2');
    expect(first.body.users.map((u: { user_id: string }) => u.user_id)).toEqual(ids.slice(0, 2));
    const second = await server.http.get(`/1/users?per_page=2&previous=${ids[1]}`);
    expect(second.body.users.map((u: { user_id: string }) => u.user_id)).toEqual(ids.slice(2, 4));
    const defaultPage = await server.http.get('/1/users');
    expect(defaultPage.body.users.length).toBe(Math.min(30, ids.length));
    expect((await server.http.get('/1/users?per_page=1000')).status).toBe(200);
    expect((await server.http.get('/1/users?per_page=abc')).status).toBe(400);
    expect((await server.http.get('/1/users?per_page=0')).status).toBe(400);
    noSecrets(all.body);
  });

  it('updates e-mail and password, and the new password signs in', async () => {
    const dave = await createUserWithToken(server.http, 'dave');
    const newEmail = `renamed-${Date.now()}@example.com`;
    // An e-mail change is an admin's (a user would learn from 409 that an address is taken).
    const res = await server.http.patch(`/1/users/${dave.id}`, { email: newEmail, password: 'new-password' });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(newEmail);
    noSecrets(res.body);
    const login = await signIn(newEmail, 'new-password');
    expect(login.status).toBe(200);
    const oldLogin = await signIn(dave.email, dave.password);
    expect(oldLogin.status).toBe(401);
    // the old address is free again, the new one is taken
    expect((await server.http.post('/1/users', { email: dave.email, password: 'x' })).status).toBe(201);
    const other = await createUserWithToken(server.http);
    expect((await server.http.patch(`/1/users/${other.id}`, { email: newEmail })).status).toBe(409);
    expect((await other.http.patch(`/1/users/${other.id}`, { email: 'fresh@example.com' })).status).toBe(403);
    expect((await other.http.patch(`/1/users/${other.id}`, { email: 'nope' })).status).toBe(400);
    expect((await other.http.patch(`/1/users/${other.id}`, { password: '' })).status).toBe(400);
    expect((await other.http.patch(`/1/users/${other.id}`, { status: 'suspended' })).status).toBe(403);
  });

  it('deletes a user, and its tokens stop working at once', async () => {
    const erin = await createUserWithToken(server.http, 'erin');
    expect((await erin.http.get('/1/tokens')).status).toBe(200);
    const res = await server.http.delete(`/1/users/${erin.email}`);
    expect(res.status).toBe(200);
    expect(res.body.msg).toBeTruthy();
    expect((await erin.http.get('/1/tokens')).status).toBe(401);
    expect((await server.http.get(`/1/users/${erin.id}`)).status).toBe(404);
    expect((await server.http.delete(`/1/users/${erin.id}`)).status).toBe(404);
  });

  it('a suspended user is refused', async () => {
    const fay = await createUserWithToken(server.http, 'fay');
    expect((await server.http.patch(`/1/users/${fay.id}`, { status: 'suspended' })).status).toBe(200);
    expect((await fay.http.get('/1/tokens')).status).toBe(403);
    expect((await server.http.patch(`/1/users/${fay.id}`, { status: 'active' })).status).toBe(200);
    expect((await fay.http.get('/1/tokens')).status).toBe(200);
  });
});

describe('sign-in', () => {
  it('signs in with e-mail and password without a token and returns a new session token, no password', async () => {
    const res = await signIn('admin@ferrum.local', 'admin-password');
    expect(res.status).toBe(200);
    expect(res.body.tokens).toHaveLength(1);
    expect(res.body.tokens).not.toContain(server.token);
    expect((await server.http.get('/1/users', { token: res.body.tokens[0] })).status).toBe(200);
    noSecrets(res.body);
  });

  it('gives a user without tokens a token to use', async () => {
    await server.http.post('/1/users', { email: 'fresh@example.com', password: 'pw' });
    const res = await signIn('fresh@example.com', 'pw');
    expect(res.status).toBe(200);
    expect(res.body.tokens).toHaveLength(1);
    const me = await server.http.get('/1/tokens', { token: res.body.tokens[0] });
    expect(me.status).toBe(200);
  });

  it('refuses a wrong password, an unknown e-mail and missing fields', async () => {
    const wrong = await signIn('admin@ferrum.local', 'nope');
    expect(wrong.status).toBe(401);
    expect(wrong.body.msg).toBeTruthy();
    const unknown = await signIn('ghost@example.com', 'x');
    expect(unknown.status).toBe(401);
    expect((await server.http.post('/1/authentication', { email: 'a@b.c' }, { token: null })).status).toBe(406);
    expect((await server.http.post('/1/authentication', undefined, { token: null })).status).toBe(406);
  });
});
