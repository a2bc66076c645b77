import { describe, expect, it } from 'vitest';
import { useBeforeAll, useRedis, useTestServer } from '../../helpers/test-file.js';
import { CacheKeys } from '../../../src/cache/keys.js';
import { KeySpace } from '../../../src/core/redis.js';
import { eventually } from '../../helpers/eventually.js';
import { cacheFootprint, cachePaths, uniqueCacheName } from '../../helpers/cache.js';

const server = useTestServer({ FERRUM_CACHE_SWEEP_MS: '100' });
const redis = useRedis(server);
const cacheKeys = useBeforeAll(() => new CacheKeys(new KeySpace(server.config.keyPrefix)));

function footprint(cacheName: string, projectId = server.projectId) {
  return cacheFootprint(redis, cacheKeys, projectId, cacheName);
}

const waitFor = (check: () => Promise<boolean>, timeoutMs = 10_000) => eventually(check, timeoutMs);

describe('cache sweeper', () => {
  it('the sweeper reclaims expired items nobody reads: nothing is left behind', async () => {
    const onlyExpiring = uniqueCacheName('reclaimed');
    const mixed = uniqueCacheName('reclaimed-mixed');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => [
        server.http.put(cachePaths(server.projectId, onlyExpiring).item(`k${i}`), { value: i, expires_in: 2 }),
        server.http.put(cachePaths(server.projectId, mixed).item(`k${i}`), { value: i, expires_in: 2 }),
      ]).flat(),
    );
    await server.http.put(cachePaths(server.projectId, mixed).item('permanent'), { value: 'stays' });
    expect(await footprint(onlyExpiring)).toEqual({
      values: 20,
      cas: 20,
      expiry: 20,
      listed: true,
      due: true,
    });

    await waitFor(async () => (await footprint(onlyExpiring)).values === 0 && (await footprint(mixed)).values === 1);
    expect(await footprint(onlyExpiring)).toEqual({
      values: 0,
      cas: 0,
      expiry: 0,
      // The cache outlives its items: it exists until it is deleted.
      listed: true,
      due: false,
    });
    expect(await footprint(mixed)).toEqual({ values: 1, cas: 1, expiry: 0, listed: true, due: false });
    const [values, cas, expiry] = cacheKeys.itemScriptKeys(server.projectId, onlyExpiring);
    expect(await redis.exists(values!, cas!, expiry!)).toBe(0);
  });
});

describe('cache sweeper across projects', () => {
  it('visits every project that stored expiring items', async () => {
    const created = await server.http.post('/1/projects', { name: 'second' });
    const projects = [server.projectId, created.body.id as string];
    const puts = await Promise.all(
      projects.flatMap((projectId) =>
        ['a', 'b', 'c'].map((cacheName) =>
          server.http.put(cachePaths(projectId, cacheName).item('k'), { value: 1, expires_in: 1 }),
        ),
      ),
    );
    expect(puts.map((res) => res.status)).toEqual(Array(6).fill(200));
    await waitFor(async () => {
      const footprints = await Promise.all(
        projects.flatMap((projectId) => ['a', 'b', 'c'].map((cacheName) => footprint(cacheName, projectId))),
      );
      return footprints.every((each) => each.values === 0 && each.listed && !each.due);
    });
  });
});
