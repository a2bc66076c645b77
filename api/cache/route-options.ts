import type { CacheStore } from '../../src/cache/cache-store.js';

/** What each route group of the cache API is given. */
export interface CacheApiOptions {
  store: CacheStore;
  maxValueBytes: number;
}
