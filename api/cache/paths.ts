import type { FastifyRequest } from 'fastify';
import { checkCacheName, checkItemKey } from '../../src/cache/item-rules.js';

/** The cache name of the path, checked. */
export function cacheNameOf(request: FastifyRequest): string {
  const { cache_name: name } = request.params as { cache_name: string };
  checkCacheName(name);
  return name;
}

/** The cache name and item key of the path, checked. */
export function itemPathOf(request: FastifyRequest): { cacheName: string; key: string } {
  const { key } = request.params as { key: string };
  const cacheName = cacheNameOf(request);
  checkItemKey(key);
  return { cacheName, key };
}
