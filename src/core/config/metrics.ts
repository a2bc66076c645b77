import { type Env } from './env.js';
import { defineSettings, intOf } from './setting.js';

export const METRICS_SETTINGS = defineSettings({
  FERRUM_HISTORY_SAMPLE_MS: {
    fallback: 60_000,
    meaning:
      "how often the leader controller samples every project's queue depth for the dashboard's charts (`0` = never)",
  },
  FERRUM_METRICS_SAMPLE_MS: {
    fallback: 15_000,
    meaning:
      "how often the leader controller samples the Redis-backed gauges (every queue, tasks by status, every cluster's tasks, runners and instances); `/metrics` serves the last sample and never reads Redis; `0` = never",
  },
  FERRUM_METRICS_TOP_QUEUES: {
    fallback: 10,
    meaning: 'how many of the deepest queues (over all projects) `ferrum_mq_queue_depth_messages` reports',
  },
  FERRUM_METRICS_REDIS_PING_MS: {
    fallback: 5000,
    meaning:
      'how often each controller and runner probes Redis (a PING and a short-lived write, each within `FERRUM_REDIS_COMMAND_TIMEOUT_MS`) for `ferrum_redis_up`, `ferrum_redis_writable` and `ferrum_redis_round_trip_seconds`, and reads `INFO memory` for `ferrum_redis_memory_used_bytes` and `ferrum_redis_memory_max_bytes`; `0` = never',
  },
  FERRUM_METRICS_TENANT_LABELS: {
    shown: 'unset',
    meaning:
      '`1` labels metrics with project ids, queue names and tenant cluster ids; by default the public `/metrics` names no tenant (no per-queue depth series; tenant clusters summed as `cluster="tenants"`)',
  },
});

/** What the leader samples for /metrics and the dashboard's charts. */
export interface MetricsSettings {
  /** How often the leader samples every project's queue depth for the dashboard's charts; 0 = never. */
  historySampleMs: number;
  metrics: {
    /** How often the leader samples gauges that read Redis (queue depth, tasks by state), in ms; 0 = never. */
    sampleMs: number;
    /** How many of the deepest queues (over all projects) ferrum_mq_queue_depth_messages reports. */
    topQueues: number;
    /** How often each process pings its Redis connection for ferrum_redis_round_trip_seconds, in ms; 0 = never. */
    redisPingMs: number;
    /** Label series with project ids, queue names and tenant cluster ids (off: no tenant appears in /metrics). */
    tenantLabels: boolean;
  };
}

export function readMetricsSettings(env: Env): MetricsSettings {
  return {
    historySampleMs: intOf(env, METRICS_SETTINGS.FERRUM_HISTORY_SAMPLE_MS),
    metrics: {
      sampleMs: intOf(env, METRICS_SETTINGS.FERRUM_METRICS_SAMPLE_MS),
      topQueues: Math.max(0, intOf(env, METRICS_SETTINGS.FERRUM_METRICS_TOP_QUEUES)),
      redisPingMs: intOf(env, METRICS_SETTINGS.FERRUM_METRICS_REDIS_PING_MS),
      tenantLabels: env.FERRUM_METRICS_TENANT_LABELS === '1',
    },
  };
}
