import { type Env, intFrom } from './env.js';

/** Settings of the cache service. */
export interface CacheConfig {
  /** Largest item value accepted by the cache service, in bytes. */
  maxValueBytes: number;
  /** How often the cache sweeper reclaims expired items. */
  sweepIntervalMs: number;
}

export function readCacheConfig(env: Env): CacheConfig {
  return {
    maxValueBytes: intFrom(env, 'FERRUM_CACHE_MAX_VALUE_BYTES', 1024 * 1024),
    sweepIntervalMs: intFrom(env, 'FERRUM_CACHE_SWEEP_MS', 1000),
  };
}
