import { type Env } from './env.js';
import { defineSettings, intOf } from './setting.js';

export const CACHE_SETTINGS = defineSettings({
  FERRUM_CACHE_MAX_VALUE_BYTES: {
    fallback: 1024 * 1024,
    meaning: "largest cache item value (a string's UTF-8 bytes, otherwise its JSON text)",
  },
  FERRUM_CACHE_SWEEP_MS: {
    fallback: 1000,
    meaning:
      'how often the leader controller frees expired cache items; `0` turns the sweeper off (reads still hide expired items)',
  },
});

/** Settings of the cache service. */
export interface CacheConfig {
  /** Largest item value accepted by the cache service, in bytes. */
  maxValueBytes: number;
  /** How often the cache sweeper reclaims expired items. */
  sweepIntervalMs: number;
}

export function readCacheConfig(env: Env): CacheConfig {
  return {
    maxValueBytes: intOf(env, CACHE_SETTINGS.FERRUM_CACHE_MAX_VALUE_BYTES),
    sweepIntervalMs: intOf(env, CACHE_SETTINGS.FERRUM_CACHE_SWEEP_MS),
  };
}
