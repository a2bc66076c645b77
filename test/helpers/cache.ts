import type { RedisClient } from '../../src/core/redis.js';
import type { CacheKeys } from '../../src/cache/keys.js';
import type { HttpClient } from './http.js';

let counter = 0;

/** A fresh cache name, so tests in one file never share state. */
export function uniqueCacheName(label = 'cache'): string {
  counter += 1;
  return `${label}-${counter}`;
}

/** The paths of one cache of a project, with the item key URL-encoded. */
export function cachePaths(projectId: string, cacheName: string) {
  const cache = `/1/projects/${projectId}/caches/${encodeURIComponent(cacheName)}`;
  return {
    list: `/1/projects/${projectId}/caches`,
    cache,
    clear: `${cache}/clear`,
    item: (key: string) => `${cache}/items/${encodeURIComponent(key)}`,
    increment: (key: string) => `${cache}/items/${encodeURIComponent(key)}/increment`,
  };
}

/** Names of every cache listed for a project, walking the pages. */
export async function listAllCaches(http: HttpClient, projectId: string): Promise<string[]> {
  const names: string[] = [];
  for (let page = 0; page <= 100; page += 1) {
    const res = await http.get(`/1/projects/${projectId}/caches?page=${page}`);
    if (res.status !== 200) throw new Error(`list failed: ${res.status} ${res.text}`);
    names.push(...res.body.map((entry: { name: string }) => entry.name));
    if (res.body.length < 100) break;
  }
  return names;
}

/** What Redis holds for one cache: stored items, and whether the project's indexes name it. */
export async function cacheFootprint(redis: RedisClient, cacheKeys: CacheKeys, projectId: string, cacheName: string) {
  const [values, cas, expiry, names, due] = cacheKeys.itemScriptKeys(projectId, cacheName);
  return {
    values: await redis.hlen(values!),
    cas: await redis.hlen(cas!),
    expiry: await redis.zcard(expiry!),
    listed: (await redis.zscore(names!, cacheName)) !== null,
    due: (await redis.zscore(due!, cacheName)) !== null,
  };
}
