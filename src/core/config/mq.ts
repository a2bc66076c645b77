import { type Env, intFrom } from './env.js';

/** Settings of the message queue service (both API versions and push delivery). */
export interface MqConfig {
  /** Largest body of a message post (v1, v3 and webhooks), which carries up to 100 messages; in bytes. */
  postBodyLimitBytes: number;
  /** Smallest reservation timeout (message_timeout, reserve and touch timeout) accepted, in seconds. */
  minTimeoutSeconds: number;
  /** Most messages one post request may carry (v1, v3); more is a 400. */
  maxPostMessages: number;
  /** How often the leader controller drops expired messages of idle queues, in ms (0 = never). */
  sweepIntervalMs: number;
  push: {
    /** Most push deliveries (HTTP requests) in flight at once; 0 turns push delivery off on this controller. */
    concurrency: number;
    /** Most messages of one push queue in delivery at once. */
    queueConcurrency: number;
    /** Per-delivery request timeout, in ms. */
    timeoutMs: number;
    /** Leader lease of the push deliverer, in ms (a dead leader is replaced after this long). */
    leaseMs: number;
    /** How long a message's push status stays readable once its delivery is over, in ms. */
    statusRetentionMs: number;
  };
}

export function readMqConfig(env: Env): MqConfig {
  return {
    postBodyLimitBytes: intFrom(env, 'FERRUM_MQ_POST_BODY_LIMIT', 6 * 1024 * 1024),
    minTimeoutSeconds: Math.max(1, intFrom(env, 'FERRUM_MQ_MIN_TIMEOUT', 30)),
    maxPostMessages: Math.max(1, intFrom(env, 'FERRUM_MQ_MAX_POST_MESSAGES', 1000)),
    sweepIntervalMs: intFrom(env, 'FERRUM_MQ_SWEEP_MS', 60_000),
    push: {
      concurrency: intFrom(env, 'FERRUM_MQ_PUSH_CONCURRENCY', 256),
      queueConcurrency: Math.max(1, intFrom(env, 'FERRUM_MQ_PUSH_QUEUE_CONCURRENCY', 64)),
      timeoutMs: Math.max(1, intFrom(env, 'FERRUM_MQ_PUSH_TIMEOUT_MS', 10_000)),
      leaseMs: Math.max(300, intFrom(env, 'FERRUM_MQ_PUSH_LEASE_MS', 10_000)),
      statusRetentionMs: Math.max(1, intFrom(env, 'FERRUM_MQ_PUSH_STATUS_RETENTION_MS', 3_600_000)),
    },
  };
}
