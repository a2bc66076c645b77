import path from 'node:path';

/** Every setting Ferrum reads from the environment; README's configuration table mirrors this. */
export interface Config {
  port: number;
  host: string;
  /** When undefined, the all-in-one process starts a managed redis-server. */
  redisUrl: string | undefined;
  keyPrefix: string;
  dataDir: string;
  bodyLimitBytes: number;
  tokenCacheMs: number;
  logLevel: string;
  publicScheme: string;
  publicHost: string | undefined;
  cache: {
    /** Largest item value accepted by the cache service, in bytes. */
    maxValueBytes: number;
    /** How often the cache sweeper reclaims expired items. */
    sweepIntervalMs: number;
  };
  mq: {
    /** Smallest reservation timeout (message_timeout, reserve and touch timeout) accepted, in seconds. */
    minTimeoutSeconds: number;
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
  };
  bootstrap: {
    token: string | undefined;
    projectId: string | undefined;
    email: string | undefined;
    password: string | undefined;
  };
}

type Env = Record<string, string | undefined>;

function intFrom(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  }
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

export function loadConfig(env: Env = process.env): Config {
  return {
    port: intFrom(env, 'PORT', 8080),
    host: env.HOST || '127.0.0.1',
    redisUrl: nonEmpty(env.REDIS_URL),
    keyPrefix: env.FERRUM_KEY_PREFIX || 'ferrum:',
    dataDir: path.resolve(env.FERRUM_DATA_DIR || './.ferrum'),
    bodyLimitBytes: intFrom(env, 'FERRUM_BODY_LIMIT', 6 * 1024 * 1024),
    tokenCacheMs: intFrom(env, 'FERRUM_TOKEN_CACHE_MS', 5000),
    logLevel: env.LOG_LEVEL || 'info',
    publicScheme: env.FERRUM_PUBLIC_SCHEME || 'http',
    publicHost: nonEmpty(env.FERRUM_PUBLIC_HOST),
    cache: {
      maxValueBytes: intFrom(env, 'FERRUM_CACHE_MAX_VALUE_BYTES', 1024 * 1024),
      sweepIntervalMs: intFrom(env, 'FERRUM_CACHE_SWEEP_MS', 1000),
    },
    mq: {
      minTimeoutSeconds: Math.max(1, intFrom(env, 'FERRUM_MQ_MIN_TIMEOUT', 30)),
      sweepIntervalMs: intFrom(env, 'FERRUM_MQ_SWEEP_MS', 60_000),
      push: {
        concurrency: intFrom(env, 'FERRUM_MQ_PUSH_CONCURRENCY', 256),
        queueConcurrency: Math.max(1, intFrom(env, 'FERRUM_MQ_PUSH_QUEUE_CONCURRENCY', 64)),
        timeoutMs: Math.max(1, intFrom(env, 'FERRUM_MQ_PUSH_TIMEOUT_MS', 10_000)),
        leaseMs: Math.max(300, intFrom(env, 'FERRUM_MQ_PUSH_LEASE_MS', 10_000)),
        statusRetentionMs: Math.max(1, intFrom(env, 'FERRUM_MQ_PUSH_STATUS_RETENTION_MS', 3_600_000)),
      },
    },
    bootstrap: {
      token: nonEmpty(env.FERRUM_BOOTSTRAP_TOKEN),
      projectId: nonEmpty(env.FERRUM_BOOTSTRAP_PROJECT_ID),
      email: nonEmpty(env.FERRUM_BOOTSTRAP_EMAIL),
      password: nonEmpty(env.FERRUM_BOOTSTRAP_PASSWORD),
    },
  };
}
