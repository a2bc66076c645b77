import { type Env, intFrom } from './env.js';

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
    historySampleMs: intFrom(env, 'FERRUM_HISTORY_SAMPLE_MS', 60_000),
    metrics: {
      sampleMs: intFrom(env, 'FERRUM_METRICS_SAMPLE_MS', 15_000),
      topQueues: Math.max(0, intFrom(env, 'FERRUM_METRICS_TOP_QUEUES', 10)),
      redisPingMs: intFrom(env, 'FERRUM_METRICS_REDIS_PING_MS', 5000),
      tenantLabels: env.FERRUM_METRICS_TENANT_LABELS === '1',
    },
  };
}
