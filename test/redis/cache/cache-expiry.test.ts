import { describe, expect, it } from 'vitest';
import { useBeforeAll, useRedis, useTestServer } from '../../helpers/test-file.js';
import { CacheKeys } from '../../../src/cache/keys.js';
import { KeySpace } from '../../../src/core/redis.js';
import { cacheFootprint, cachePaths, listAllCaches, uniqueCacheName } from '../../helpers/cache.js';
import { scriptClock } from '../../../src/core/lua.js';

// The sweeper is off here: what these tests see comes from the scripts alone, and the expired
// items are shown to be still stored when get, size and list already leave them out.
const server = useTestServer({ FERRUM_CACHE_SWEEP_MS: '0' });
const redis = useRedis(server);
const cacheKeys = useBeforeAll(() => new CacheKeys(new KeySpace(server.config.keyPrefix)));

function footprint(cacheName: string, projectId = server.projectId) {
  return cacheFootprint(redis, cacheKeys, projectId, cacheName);
}

describe('expiry', () => {
  it('an expired item is gone for get, size and list with no read in between', async () => {
    const name = uniqueCacheName('expiring');
    const paths = cachePaths(server.projectId, name);
    await server.http.put(paths.item('short'), { value: 'x', expires_in: 2 });
    expect((await server.http.get(paths.cache)).body.size).toBe(1);
    expect(await listAllCaches(server.http, server.projectId)).toContain(name);

    scriptClock.advance(2100);
    // The cache outlives its items: it is still listed, with size 0.
    expect((await server.http.get(paths.cache)).body).toEqual({ project_id: server.projectId, name, size: 0 });
    expect(await listAllCaches(server.http, server.projectId)).toContain(name);
    expect((await server.http.get(paths.item('short'))).status).toBe(404);
    expect((await footprint(name)).values).toBe(1); // still stored: nothing but the clock changed
  });

  it('size counts only live items while some expire unread', async () => {
    const name = uniqueCacheName('mixed');
    const paths = cachePaths(server.projectId, name);
    await server.http.put(paths.item('keep'), { value: 1 });
    await server.http.put(paths.item('long'), { value: 2, expires_in: 600 });
    await Promise.all(
      Array.from({ length: 5 }, (_, i) => server.http.put(paths.item(`short-${i}`), { value: i, expires_in: 2 })),
    );
    expect((await server.http.get(paths.cache)).body.size).toBe(7);
    scriptClock.advance(2100);
    expect((await server.http.get(paths.cache)).body.size).toBe(2);
    expect(await listAllCaches(server.http, server.projectId)).toContain(name);
    expect((await footprint(name)).values).toBe(7);
  });

  it('an expired key counts as absent for add, replace, cas, delete and increment', async () => {
    const paths = cachePaths(server.projectId, uniqueCacheName('conditions'));
    for (const key of ['add', 'replace', 'cas', 'delete', 'incr']) {
      await server.http.put(paths.item(key), { value: 5, expires_in: 2 });
    }
    const { cas } = (await server.http.get(paths.item('cas'))).body;
    scriptClock.advance(2100);
    expect((await server.http.put(paths.item('add'), { value: 'new', add: true })).body).toEqual({ msg: 'Stored.' });
    const replaced = await server.http.put(paths.item('replace'), { value: 'new', replace: true });
    expect(replaced.body.msg).toMatch(/^Not stored/);
    expect((await server.http.get(paths.item('replace'))).status).toBe(404);
    expect((await server.http.put(paths.item('cas'), { value: 'new', cas })).status).toBe(404);
    expect((await server.http.delete(paths.item('delete'))).status).toBe(404);
    expect((await server.http.post(paths.increment('incr'), { amount: 2 })).body.value).toBe(2);
    expect((await server.http.get(paths.cache)).body.size).toBe(2);
  });

  it('a put without expires_in makes an expiring item permanent again', async () => {
    const paths = cachePaths(server.projectId, uniqueCacheName('persist'));
    await server.http.put(paths.item('k'), { value: 1, expires_in: 1 });
    await server.http.put(paths.item('k'), { value: 2 });
    scriptClock.advance(1100);
    expect((await server.http.get(paths.item('k'))).body.value).toBe(2);
  });
});
