import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CacheKeys } from '../src/cache/keys.js';
import { KeySpace } from '../src/core/redis.js';
import { sleep } from '../src/core/time.js';
import { cachePaths, listAllCaches, uniqueCacheName } from './helpers/cache.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let redis: Redis;
let cacheKeys: CacheKeys;
beforeAll(async () => {
  server = await startTestServer({ FERRUM_CACHE_SWEEP_MS: '100' });
  redis = new Redis(server.redisUrl);
  cacheKeys = new CacheKeys(new KeySpace(server.config.keyPrefix));
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

/** What Redis holds for one cache: stored items and the project's index entries for it. */
async function footprint(cacheName: string) {
  const [values, cas, expiry, names, live, due] = cacheKeys.itemScriptKeys(server.projectId, cacheName);
  return {
    values: await redis.hlen(values!),
    cas: await redis.hlen(cas!),
    expiry: await redis.zcard(expiry!),
    listed: (await redis.zscore(names!, cacheName)) !== null,
    live: (await redis.zscore(live!, cacheName)) !== null,
    due: (await redis.zscore(due!, cacheName)) !== null,
  };
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(50);
  }
}

describe.concurrent('expiry', () => {
  it('an expired item is gone for get, size and list with no read in between', async () => {
    const name = uniqueCacheName('expiring');
    const paths = cachePaths(server.projectId, name);
    await server.http.put(paths.item('short'), { value: 'x', expires_in: 1 });
    expect((await server.http.get(paths.cache)).body.size).toBe(1);
    expect(await listAllCaches(server.http, server.projectId)).toContain(name);

    await sleep(1100);
    expect((await server.http.get(paths.cache)).body.size).toBe(0);
    expect(await listAllCaches(server.http, server.projectId)).not.toContain(name);
    expect((await server.http.get(paths.item('short'))).status).toBe(404);
  });

  it('size counts only live items while some expire unread', async () => {
    const name = uniqueCacheName('mixed');
    const paths = cachePaths(server.projectId, name);
    await server.http.put(paths.item('keep'), { value: 1 });
    await server.http.put(paths.item('long'), { value: 2, expires_in: 600 });
    for (let i = 0; i < 5; i += 1) await server.http.put(paths.item(`short-${i}`), { value: i, expires_in: 1 });
    expect((await server.http.get(paths.cache)).body.size).toBe(7);
    await sleep(1100);
    expect((await server.http.get(paths.cache)).body.size).toBe(2);
    expect(await listAllCaches(server.http, server.projectId)).toContain(name);
  });

  it('an expired key counts as absent for add, replace, cas, delete and increment', async () => {
    const paths = cachePaths(server.projectId, uniqueCacheName('conditions'));
    for (const key of ['add', 'replace', 'cas', 'delete', 'incr']) {
      await server.http.put(paths.item(key), { value: 5, expires_in: 1 });
    }
    const { cas } = (await server.http.get(paths.item('cas'))).body;
    await sleep(1100);
    expect((await server.http.put(paths.item('add'), { value: 'new', add: true })).status).toBe(200);
    expect((await server.http.put(paths.item('replace'), { value: 'new', replace: true })).status).toBe(404);
    expect((await server.http.put(paths.item('cas'), { value: 'new', cas })).status).toBe(404);
    expect((await server.http.delete(paths.item('delete'))).status).toBe(404);
    expect((await server.http.post(paths.increment('incr'), { amount: 2 })).body.value).toBe(2);
    expect((await server.http.get(paths.cache)).body.size).toBe(2);
  });

  it('a put without expires_in makes an expiring item permanent again', async () => {
    const paths = cachePaths(server.projectId, uniqueCacheName('persist'));
    await server.http.put(paths.item('k'), { value: 1, expires_in: 1 });
    await server.http.put(paths.item('k'), { value: 2 });
    await sleep(1100);
    expect((await server.http.get(paths.item('k'))).body.value).toBe(2);
  });

  it('the sweeper reclaims expired items nobody reads: nothing is left behind', async () => {
    const onlyExpiring = uniqueCacheName('reclaimed');
    const mixed = uniqueCacheName('reclaimed-mixed');
    for (let i = 0; i < 20; i += 1) {
      await server.http.put(cachePaths(server.projectId, onlyExpiring).item(`k${i}`), { value: i, expires_in: 1 });
      await server.http.put(cachePaths(server.projectId, mixed).item(`k${i}`), { value: i, expires_in: 1 });
    }
    await server.http.put(cachePaths(server.projectId, mixed).item('permanent'), { value: 'stays' });
    expect(await footprint(onlyExpiring)).toEqual({ values: 20, cas: 20, expiry: 20, listed: true, live: true, due: true });

    await waitFor(async () => (await footprint(onlyExpiring)).values === 0 && (await footprint(mixed)).values === 1);
    expect(await footprint(onlyExpiring)).toEqual({ values: 0, cas: 0, expiry: 0, listed: false, live: false, due: false });
    expect(await footprint(mixed)).toEqual({ values: 1, cas: 1, expiry: 0, listed: true, live: true, due: false });
    const [values, cas, expiry] = cacheKeys.itemScriptKeys(server.projectId, onlyExpiring);
    expect(await redis.exists(values!, cas!, expiry!)).toBe(0);
  });
});
