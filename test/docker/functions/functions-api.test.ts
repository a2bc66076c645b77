import { describe, expect, it } from 'vitest';
import { createUserWithToken } from '../../helpers/identity.js';
import { madeOnFirstUse } from '../../helpers/read-through.js';
import { useTestServer } from '../../helpers/test-file.js';

const server = useTestServer();
const admin = madeOnFirstUse(() => server.http);

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${++counter}`;

function expectError(response: { status: number; body: any }, status: number, text: string | RegExp) {
  expect(response.status).toBe(status);
  expect(Object.keys(response.body)).toEqual(['error']);
  expect(response.body.error.message).toMatch(text);
}

describe('apps', () => {
  it('creates, reads, lists, updates (config merge) and deletes an app', async () => {
    const name = uniqueName('app');
    const created = await admin.post('/v1/apps', { app: { name, config: { A: '1', B: '2' } } });
    expect(created.status).toBe(200);
    expect(created.body.message).toBe('App successfully created');
    expect(created.body.app).toMatchObject({ name, project_id: server.projectId, config: { A: '1', B: '2' } });
    expect(created.body.app.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const read = await admin.get(`/v1/apps/${name}`);
    expect(read.body).toMatchObject({ message: 'Successfully loaded app', app: { name, config: { A: '1', B: '2' } } });

    const list = await admin.get('/v1/apps');
    expect(list.body.message).toBe('Successfully listed applications');
    expect(list.body.apps.map((app: any) => app.name)).toContain(name);

    const patched = await admin.patch(`/v1/apps/${name}`, { app: { config: { B: '', C: '3' } } });
    expect(patched.status).toBe(200);
    expect(patched.body.app.config).toEqual({ A: '1', C: '3' });

    const deleted = await admin.delete(`/v1/apps/${name}`);
    expect(deleted.body).toEqual({ message: 'App successfully deleted' });
    expectError(await admin.get(`/v1/apps/${name}`), 404, 'App not found');
  });

  it('pages the app list by cursor', async () => {
    const names = [uniqueName('page'), uniqueName('page'), uniqueName('page')];
    for (const name of names) expect((await admin.post('/v1/apps', { app: { name } })).status).toBe(200);
    const seen: string[] = [];
    let cursor = '';
    for (let i = 0; i < 20; i++) {
      const page = await admin.get(`/v1/apps?per_page=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.apps.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.apps.map((app: any) => app.name));
      if (!page.body.next_cursor) break;
      cursor = page.body.next_cursor;
    }
    for (const name of names) expect(seen.filter((seenName) => seenName === name)).toHaveLength(1);
  });

  it('refuses bad app input with 400, duplicates with 409, deleting an app with routes with 409', async () => {
    expectError(await admin.post('/v1/apps', {}), 400, 'app is required');
    expectError(await admin.post('/v1/apps', { app: {} }), 400, 'app.name is required');
    expectError(await admin.post('/v1/apps', { app: { name: 42 } }), 400, /app\.name must be a string/);
    expectError(await admin.post('/v1/apps', { app: { name: 'has space' } }), 400, /app name must be 1 to 30/);
    expectError(await admin.post('/v1/apps', { app: { name: 'x'.repeat(31) } }), 400, /app name must be 1 to 30/);
    expectError(
      await admin.post('/v1/apps', { app: { name: uniqueName('c'), config: { A: 1 } } }),
      400,
      /config.*string/,
    );
    expectError(
      await admin.post('/v1/apps', { app: { name: uniqueName('c'), config: { '1BAD': 'x' } } }),
      400,
      /variable name/,
    );
    expectError(
      await admin.post('/v1/apps', undefined, { raw: '{bad json', headers: { 'Content-Type': 'application/json' } }),
      400,
      /Invalid JSON/,
    );

    const name = uniqueName('dup');
    await admin.post('/v1/apps', { app: { name } });
    expectError(await admin.post('/v1/apps', { app: { name } }), 409, 'already exists');
    expectError(await admin.patch(`/v1/apps/${name}`, { app: { name: 'other' } }), 400, 'immutable');
    expectError(await admin.patch('/v1/apps/missing-app', { app: { config: {} } }), 404, 'App not found');
    expectError(await admin.delete('/v1/apps/missing-app'), 404, 'App not found');

    await admin.post(`/v1/apps/${name}/routes`, { route: { path: '/x', image: 'ferrum-test/busybox' } });
    expectError(await admin.delete(`/v1/apps/${name}`), 409, /has routes/);
    await admin.delete(`/v1/apps/${name}/routes/x`);
    expect((await admin.delete(`/v1/apps/${name}`)).status).toBe(200);
  });

  it("needs a token (OAuth, Bearer or ?oauth=) and hides other users' apps", async () => {
    expectError(await admin.get('/v1/apps', { token: null }), 401, 'Token not provided');
    expectError(await admin.get('/v1/apps', { token: 'nope' }), 401, 'Invalid token');
    expect(
      (await admin.get('/v1/apps', { token: null, headers: { Authorization: `Bearer ${server.token}` } })).status,
    ).toBe(200);
    expect((await admin.get(`/v1/apps?oauth=${server.token}`, { token: null })).status).toBe(200);
    expectError(
      await admin.get('/v1/apps', { token: null, headers: { Authorization: `Basic abc` } }),
      401,
      /OAuth <token>/,
    );

    const mine = uniqueName('mine');
    await admin.post('/v1/apps', { app: { name: mine } });
    const stranger = await createUserWithToken(admin, 'fn-stranger');
    expectError(
      await stranger.http.post('/v1/apps', { app: { name: uniqueName('s') } }),
      400,
      /project_id is required: this user has no project/,
    );
    const one = await stranger.http.post('/1/projects', { name: 'one' });
    const theirs = uniqueName('theirs');
    const created = await stranger.http.post('/v1/apps', { app: { name: theirs } });
    expect(created.body.app.project_id).toBe(one.body.id ?? one.body.project_id ?? created.body.app.project_id);
    await stranger.http.post('/1/projects', { name: 'two' });
    expectError(
      await stranger.http.post('/v1/apps', { app: { name: uniqueName('s') } }),
      400,
      /project_id is required: this user has several/,
    );
    expectError(
      await stranger.http.post('/v1/apps', { app: { name: uniqueName('s'), project_id: server.projectId } }),
      403,
      /no access/,
    );

    expectError(await stranger.http.get(`/v1/apps/${mine}`), 404, 'App not found');
    expectError(await stranger.http.delete(`/v1/apps/${mine}`), 404, 'App not found');
    expectError(
      await stranger.http.post(`/v1/apps/${mine}/routes`, { route: { path: '/a', image: 'x' } }),
      404,
      'App not found',
    );
    const names = (await stranger.http.get('/v1/apps')).body.apps.map((app: any) => app.name);
    expect(names).toEqual([theirs]);
    expect((await admin.get(`/v1/apps/${theirs}`)).status).toBe(200);
  });
});

describe('routes', () => {
  it('creates a route (and its app), reads, lists, updates, puts and deletes it', async () => {
    const name = uniqueName('routes');
    const created = await admin.post(`/v1/apps/${name}/routes`, {
      route: {
        path: '/hello/world',
        image: 'ferrum-test/busybox',
        config: { K: 'v' },
        headers: { 'X-Route': 'yes' },
        secret: 'a-long-enough-s3cret',
      },
    });
    expect(created.status).toBe(200);
    expect(created.body.message).toBe('Route successfully created');
    expect(created.body.route).toEqual({
      app_name: name,
      path: '/hello/world',
      image: 'ferrum-test/busybox',
      memory: 128,
      type: 'sync',
      format: 'default',
      timeout: 30,
      idle_timeout: 30,
      max_concurrency: 10,
      headers: { 'X-Route': 'yes' },
      config: { K: 'v' },
      has_secret: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(created.text).not.toContain('s3cret');
    expect((await admin.get(`/v1/apps/${name}`)).body.app.project_id).toBe(server.projectId);

    const read = await admin.get(`/v1/apps/${name}/routes/hello/world`);
    expect(read.body.route.path).toBe('/hello/world');
    const list = await admin.get(`/v1/apps/${name}/routes`);
    expect(list.body).toMatchObject({ message: 'Successfully listed routes', routes: [{ path: '/hello/world' }] });

    // Fields a route keeps as sent (an empty config value removes the key; an empty secret, the secret).
    const kept = { memory: 64, type: 'async', format: 'json', timeout: 5, idle_timeout: 7, max_concurrency: 3 };
    const patched = await admin.patch(`/v1/apps/${name}/routes/hello/world`, {
      route: { path: '/hello/world', ...kept, config: { K: '', L: 'w' }, secret: '' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.route).toMatchObject({ ...kept, config: { L: 'w' }, has_secret: false });

    const put = await admin.put(`/v1/apps/${name}/routes/hello/world`, { route: { image: 'ferrum-test/task-echo' } });
    expect(put.body).toMatchObject({
      message: 'Route successfully updated',
      route: { image: 'ferrum-test/task-echo', memory: 64 },
    });
    const putNew = await admin.put(`/v1/apps/${name}/routes/other`, { route: { image: 'ferrum-test/busybox' } });
    expect(putNew.body).toMatchObject({
      message: 'Route successfully created',
      route: { path: '/other', memory: 128 },
    });

    expect((await admin.delete(`/v1/apps/${name}/routes/hello/world`)).body).toEqual({
      message: 'Route successfully deleted',
    });
    expectError(await admin.get(`/v1/apps/${name}/routes/hello/world`), 404, 'Route not found');
    expectError(await admin.delete(`/v1/apps/${name}/routes/hello/world`), 404, 'Route not found');
  });

  it('refuses every kind of bad route input with a message naming it', async () => {
    const name = uniqueName('bad');
    const post = (route: unknown) => admin.post(`/v1/apps/${name}/routes`, { route });
    expectError(await admin.post(`/v1/apps/${name}/routes`, {}), 400, 'route is required');
    expectError(await post({ image: 'x' }), 400, 'route.path is required');
    expectError(await post({ path: '/a' }), 400, 'route.image is required');
    expectError(await post({ path: 'relative', image: 'x' }), 400, /route path must be absolute/);
    expectError(await post({ path: '/a/', image: 'x' }), 400, /route path must be absolute/);
    expectError(await post({ path: '/a//b', image: 'x' }), 400, /route path must be absolute/);
    expectError(await post({ path: '/a', image: 'bad image!' }), 400, /image reference/);
    expectError(await post({ path: '/a', image: 'x', memory: 'big' }), 400, /route\.memory must be an integer/);
    expectError(await post({ path: '/a', image: 'x', memory: 2 }), 400, /memory must be from 8/);
    expectError(await post({ path: '/a', image: 'x', memory: 1_000_000 }), 400, /memory must be from 8 to 4096/);
    expectError(await post({ path: '/a', image: 'x', type: 'later' }), 400, 'route.type must be one of: sync, async');
    expectError(
      await post({ path: '/a', image: 'x', format: 'xml' }),
      400,
      'route.format must be one of: default, http, json',
    );
    expectError(await post({ path: '/a', image: 'x', timeout: 0 }), 400, /timeout must be from 1 to 3600/);
    expectError(await post({ path: '/a', image: 'x', timeout: 1.5 }), 400, /route\.timeout must be an integer/);
    expectError(await post({ path: '/a', image: 'x', idle_timeout: 4000 }), 400, /idle_timeout must be from 1 to 3600/);
    expectError(await post({ path: '/a', image: 'x', max_concurrency: 0 }), 400, /max_concurrency must be from 1/);
    expectError(await post({ path: '/a', image: 'x', headers: { 'bad header': 'v' } }), 400, /not a valid header name/);
    expectError(
      await post({ path: '/a', image: 'x', headers: { 'X-A': 1 } }),
      400,
      'route.headers.X-A must be a string',
    );
    expectError(await post({ path: '/a', image: 'x', config: { 'A-B': 'v' } }), 400, /variable name/);
    expectError(await post({ path: '/a', image: 'x', secret: 7 }), 400, /route\.secret must be a string/);
    expectError(await post({ path: '/a', image: 'x', secret: 'short' }), 400, /secret must be at least 16 characters/);
    expectError(await admin.post('/v1/apps/bad name/routes', { route: { path: '/a', image: 'x' } }), 400, /app name/);

    expect((await post({ path: '/a', image: 'x' })).status).toBe(200);
    expectError(await post({ path: '/a', image: 'x' }), 409, 'Route /a already exists');
    expectError(
      await admin.patch(`/v1/apps/${name}/routes/a`, { route: { path: '/b' } }),
      400,
      'route.path is immutable',
    );
    expectError(await admin.patch(`/v1/apps/${name}/routes/a`, { route: { memory: 1 } }), 400, /memory must be/);
    expectError(await admin.patch(`/v1/apps/${name}/routes/nope`, { route: { memory: 64 } }), 404, 'Route not found');
    expectError(await admin.get(`/v1/apps/nope-${name}/routes`), 404, 'App not found');
    expectError(await admin.get('/v1/nothing-here'), 404, /Endpoint not found/);
  });
});
