import type { WithParams } from '../type-provider.js';
import { checkCacheName, checkItemKey } from '../../src/cache/item-rules.js';

/** The cache name of the path, checked. */
export function cacheNameOf(request: WithParams<{ cache_name: string }>): string {
  const { cache_name: name } = request.params;
  checkCacheName(name);
  return name;
}

/** The cache name and item key of the path, checked. */
export function itemPathOf(request: WithParams<{ cache_name: string; key: string }>): {
  cacheName: string;
  key: string;
} {
  const { key } = request.params;
  const cacheName = cacheNameOf(request);
  checkItemKey(key);
  return { cacheName, key };
}
