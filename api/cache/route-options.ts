import type { Quotas } from '../../src/auth/quotas.js';
import type { CacheStore } from '../../src/cache/cache-store.js';

/** What each route group of the cache API is given. */
export interface CacheApiOptions {
  store: CacheStore;
  maxValueBytes: number;
  /** The operator's default quotas (a project may have its own). */
  quotas: Quotas;
}
