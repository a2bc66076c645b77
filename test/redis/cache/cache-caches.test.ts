import { describe, expect, it } from 'vitest';
import { cachePaths, uniqueCacheName } from '../../helpers/cache.js';
import { createProject, createUserWithToken } from '../../helpers/identity.js';
import { useTestServer } from '../../helpers/test-file.js';

const server = useTestServer();
const newProject = () => createProject(server.http, 'caches');

describe('listing caches', () => {
  it('pages 250 caches 100 at a time, ordered by name, each with project_id and name', async () => {
    const projectId = await newProject();
    const names = Array.from({ length: 250 }, (_, i) => `cache-${String(i).padStart(3, '0')}`);
    for (let i = 0; i < names.length; i += 50) {
      await Promise.all(
        names.slice(i, i + 50).map((name) => server.http.put(cachePaths(projectId, name).item('k'), { value: 1 })),
      );
    }
    const pages = [];
    for (const page of [0, 1, 2, 3]) {
      const res = await server.http.get(`/1/projects/${projectId}/caches?page=${page}`);
      expect(res.status).toBe(200);
      pages.push(res.body);
    }
    expect(pages.map((page) => page.length)).toEqual([100, 100, 50, 0]);
    expect(pages[0][0]).toEqual({ project_id: projectId, name: 'cache-000' });
    expect(pages.flat().map((entry: { name: string }) => entry.name)).toEqual(names);
    const firstPage = await server.http.get(`/1/projects/${projectId}/caches`);
    expect(firstPage.body).toEqual(pages[0]);
  });

  it('lists a project with no caches as an empty array', async () => {
    const projectId = await newProject();
    const res = await server.http.get(`/1/projects/${projectId}/caches`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('lists a cache from its first put or increment until it is deleted, cleared or emptied or not', async () => {
    const projectId = await newProject();
    for (const name of ['cleared', 'deleted', 'emptied', 'kept']) {
      await server.http.put(cachePaths(projectId, name).item('k'), { value: 1 });
    }
    await server.http.post(cachePaths(projectId, 'incremented').increment('n'), { amount: 1 });
    await server.http.post(cachePaths(projectId, 'cleared').clear);
    await server.http.delete(cachePaths(projectId, 'deleted').cache);
    await server.http.delete(cachePaths(projectId, 'emptied').item('k'));
    const res = await server.http.get(`/1/projects/${projectId}/caches`);
    expect(res.body.map((entry: { name: string }) => entry.name)).toEqual([
      'cleared',
      'emptied',
      'incremented',
      'kept',
    ]);
  });

  it('a failed put creates no cache; a put that keeps an item (add, replace) does', async () => {
    const projectId = await newProject();
    const refused = await server.http.put(cachePaths(projectId, 'refused').item('k'), { value: 1, cas: 7 });
    expect(refused.status).toBe(404);
    expect((await server.http.put(cachePaths(projectId, 'bad').item('k'), { value: null })).status).toBe(406);
    const kept = await server.http.put(cachePaths(projectId, 'replaced').item('k'), { value: 1, replace: true });
    expect(kept.status).toBe(200);
    const res = await server.http.get(`/1/projects/${projectId}/caches`);
    expect(res.body).toEqual([{ project_id: projectId, name: 'replaced' }]);
    expect((await server.http.get(cachePaths(projectId, 'replaced').cache)).body.size).toBe(0);
  });
});

describe('cache info', () => {
  it('reports the number of live items', async () => {
    const name = uniqueCacheName('info');
    const paths = cachePaths(server.projectId, name);
    for (const key of ['a', 'b', 'c']) await server.http.put(paths.item(key), { value: key });
    await server.http.put(paths.item('a'), { value: 'again' });
    const res = await server.http.get(paths.cache);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ project_id: server.projectId, name, size: 3 });
  });

  it('answers 404 for info, clear and delete of a cache never put to, or deleted', async () => {
    const paths = cachePaths(server.projectId, uniqueCacheName('never-used'));
    for (const res of [
      await server.http.get(paths.cache),
      await server.http.post(paths.clear),
      await server.http.delete(paths.cache),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.msg).toBe('Cache not found');
    }
    await server.http.put(paths.item('k'), { value: 1 });
    expect((await server.http.delete(paths.cache)).status).toBe(200);
    expect((await server.http.get(paths.cache)).status).toBe(404);
    expect((await server.http.post(paths.clear)).status).toBe(404);
    expect(await server.http.get(paths.list).then((res) => res.body)).not.toContainEqual(
      expect.objectContaining({ name: paths.cache.split('/').pop() }),
    );
  });

  it('info of a cleared cache answers 200 with size 0, and it stays listed', async () => {
    const name = uniqueCacheName('cleared');
    const paths = cachePaths(server.projectId, name);
    await server.http.put(paths.item('a'), { value: 1 });
    await server.http.put(paths.item('b'), { value: 2 });
    expect((await server.http.post(paths.clear)).status).toBe(200);
    const info = await server.http.get(paths.cache);
    expect(info.status).toBe(200);
    expect(info.body).toEqual({ project_id: server.projectId, name, size: 0 });
    expect((await server.http.get(paths.list)).body).toContainEqual({ project_id: server.projectId, name });
    expect((await server.http.post(paths.clear)).status).toBe(200);
  });
});

describe('project isolation and authentication', () => {
  it('the same cache and key in two projects are independent', async () => {
    const other = await newProject();
    const mine = cachePaths(server.projectId, 'shared-name');
    const theirs = cachePaths(other, 'shared-name');
    await server.http.put(mine.item('k'), { value: 'mine' });
    await server.http.put(theirs.item('k'), { value: 'theirs' });
    expect((await server.http.get(mine.item('k'))).body.value).toBe('mine');
    expect((await server.http.get(theirs.item('k'))).body.value).toBe('theirs');
    await server.http.delete(theirs.cache);
    expect((await server.http.get(mine.item('k'))).body.value).toBe('mine');
    const listed = await server.http.get(`/1/projects/${other}/caches`);
    expect(listed.body).toEqual([]);
  });

  it("a user cannot reach another user's project: 403 on every route", async () => {
    const stranger = await createUserWithToken(server.http);
    const paths = cachePaths(server.projectId, uniqueCacheName('private'));
    await server.http.put(paths.item('k'), { value: 'secret' });
    const attempts = [
      stranger.http.get(paths.list),
      stranger.http.get(paths.cache),
      stranger.http.delete(paths.cache),
      stranger.http.post(paths.clear),
      stranger.http.put(paths.item('k'), { value: 'stolen' }),
      stranger.http.get(paths.item('k')),
      stranger.http.delete(paths.item('k')),
      stranger.http.post(paths.increment('k'), { amount: 1 }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(res.body.msg).toBeTruthy();
    }
    expect((await server.http.get(paths.item('k'))).body.value).toBe('secret');
  });

  it('a project shared with a user is usable by that user', async () => {
    const friend = await createUserWithToken(server.http);
    const projectId = await newProject();
    expect((await server.http.patch(`/1/projects/${projectId}/share`, [{ user_id: friend.id }])).status).toBe(200);
    const paths = cachePaths(projectId, 'together');
    expect((await friend.http.put(paths.item('k'), { value: 'hi' })).status).toBe(200);
    expect((await server.http.get(paths.item('k'))).body.value).toBe('hi');
  });

  it('401 without a token or with a bad one; the oauth query parameter works; 404 for an unknown project', async () => {
    const paths = cachePaths(server.projectId, uniqueCacheName('auth'));
    await server.http.put(paths.item('k'), { value: 1 });
    expect((await server.http.get(paths.cache, { token: null })).status).toBe(401);
    expect((await server.http.get(paths.cache, { token: 'not-a-token' })).status).toBe(401);
    const bearer = await server.http.get(paths.cache, {
      token: null,
      headers: { Authorization: `Bearer ${server.token}` },
    });
    expect(bearer.status).toBe(401);
    const viaQuery = await server.http.get(`${paths.cache}?oauth=${server.token}`, { token: null });
    expect(viaQuery.status).toBe(200);
    const unknown = await server.http.get(cachePaths('000000000000000000000000', 'c').cache);
    expect(unknown.status).toBe(404);
    expect(unknown.body.msg).toMatch(/Project not found/);
  });

  it('accepts tokens of the earlier API generation (version 1 API)', async () => {
    const legacy = await server.http.post('/1/tokens', { name: 'old', type: 'v2' });
    expect(legacy.status).toBe(201);
    const paths = cachePaths(server.projectId, uniqueCacheName('legacy'));
    const client = server.http.withToken(legacy.body.token);
    expect((await client.put(paths.item('k'), { value: 1 })).status).toBe(200);
    expect((await client.get(paths.item('k'))).body.value).toBe(1);
  });

  it('a suspended project is refused with 403 to its users (admins may still look)', async () => {
    const owner = await createUserWithToken(server.http, 'suspended-owner');
    const created = await owner.http.post('/1/projects', { name: `suspended-${Date.now()}` });
    expect(created.status).toBe(201);
    const projectId = created.body.id as string;
    expect((await server.http.patch(`/1/projects/${projectId}`, { status: 'suspended' })).status).toBe(200);
    const res = await owner.http.put(cachePaths(projectId, 'c').item('k'), { value: 1 });
    expect(res.status).toBe(403);
    expect(res.body.msg).toMatch(/suspended/);
    expect((await server.http.get(`/1/projects/${projectId}/caches`)).status).toBe(200);
  });
});
