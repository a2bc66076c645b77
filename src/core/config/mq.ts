import { type Env } from './env.js';
import { defineSettings, intOf } from './setting.js';

export const MQ_SETTINGS = defineSettings({
  FERRUM_MQ_POST_BODY_LIMIT: {
    fallback: 6 * 1024 * 1024,
    meaning:
      'largest body of a message post (v1, v3, webhooks), bytes: up to `FERRUM_MQ_MAX_POST_MESSAGES` messages per request',
  },
  FERRUM_MQ_MIN_TIMEOUT: {
    fallback: 30,
    meaning:
      'smallest reservation timeout, in seconds, accepted for `message_timeout` and for the reserve and touch `timeout`',
  },
  FERRUM_MQ_MAX_POST_MESSAGES: {
    fallback: 1000,
    meaning:
      'most messages one post request (v1 or v3) may carry; more is a 400. The messages are written in bounded chunks, so no Redis script runs long whatever the request',
  },
  FERRUM_MQ_SWEEP_MS: {
    fallback: 60_000,
    meaning:
      'how often the leader controller drops expired messages of queues nobody uses (`0` = never; queues in use are cleaned as they are used)',
  },
  FERRUM_MQ_PUSH_CONCURRENCY: {
    fallback: 256,
    meaning:
      'most push deliveries in flight at once on the delivering controller, shared fairly between projects: one project holds at most this divided by (the projects delivering or waiting + 1), so a slot is always free for the next project, and waiting projects are served in turn; `0` turns push delivery off on this controller',
  },
  FERRUM_MQ_PUSH_QUEUE_CONCURRENCY: {
    fallback: 64,
    meaning: 'most messages of one push queue in delivery at once (a slow subscriber cannot take every slot)',
  },
  FERRUM_MQ_PUSH_TIMEOUT_MS: {
    fallback: 10_000,
    meaning: 'timeout of each push delivery (connect, answer headers, answer body)',
  },
  FERRUM_MQ_PUSH_LEASE_MS: {
    fallback: 10_000,
    meaning: 'leader lease of the push deliverer; another controller takes over this long after the leader dies',
  },
  FERRUM_MQ_PUSH_STATUS_RETENTION_MS: {
    fallback: 3_600_000,
    meaning: "how long a message's push statuses stay readable after its delivery is over",
  },
});

/** Settings of the message queue service (both API versions and push delivery). */
export interface MqConfig {
  /** Largest body of a message post (v1, v3 and webhooks), up to FERRUM_MQ_MAX_POST_MESSAGES messages; in bytes. */
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
    postBodyLimitBytes: intOf(env, MQ_SETTINGS.FERRUM_MQ_POST_BODY_LIMIT),
    minTimeoutSeconds: Math.max(1, intOf(env, MQ_SETTINGS.FERRUM_MQ_MIN_TIMEOUT)),
    maxPostMessages: Math.max(1, intOf(env, MQ_SETTINGS.FERRUM_MQ_MAX_POST_MESSAGES)),
    sweepIntervalMs: intOf(env, MQ_SETTINGS.FERRUM_MQ_SWEEP_MS),
    push: {
      concurrency: intOf(env, MQ_SETTINGS.FERRUM_MQ_PUSH_CONCURRENCY),
      queueConcurrency: Math.max(1, intOf(env, MQ_SETTINGS.FERRUM_MQ_PUSH_QUEUE_CONCURRENCY)),
      timeoutMs: Math.max(1, intOf(env, MQ_SETTINGS.FERRUM_MQ_PUSH_TIMEOUT_MS)),
      leaseMs: Math.max(300, intOf(env, MQ_SETTINGS.FERRUM_MQ_PUSH_LEASE_MS)),
      statusRetentionMs: Math.max(1, intOf(env, MQ_SETTINGS.FERRUM_MQ_PUSH_STATUS_RETENTION_MS)),
    },
  };
}
