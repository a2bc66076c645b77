import { Redis, type RedisOptions } from 'ioredis';
import { pino } from 'pino';
import { FailureLog, type StateLogger } from './failure-log.js';

export interface RedisClientOptions extends RedisOptions {
  /** Where the connection's state changes (lost, restored) are logged; a JSON logger on stdout by default. */
  log?: StateLogger;
  /** Told of every connection error, by kind (see redisErrorKind), e.g. to count them in a metric. */
  onError?: (kind: string) => void;
}

/**
 * A bounded name for a Redis error: the system error code of a lost connection (ECONNREFUSED,
 * ECONNRESET, ETIMEDOUT, …), `timeout` for a command that got no answer in time, `unavailable`
 * for a command refused while disconnected, the Redis error prefix of a reply (OOM, LOADING,
 * READONLY, …), else `other`.
 */
export function redisErrorKind(error: unknown): string {
  if (!(error instanceof Error)) return 'other';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  if (error.message === 'Command timed out') return 'timeout';
  if (isRedisUnavailable(error)) return 'unavailable';
  if (error.name === 'ReplyError') return /^[A-Z]+/.exec(error.message)?.[0] ?? 'reply';
  return 'other';
}

let defaultLog: StateLogger | null = null;
/** The JSON logger of code that was given none (connection state changes, the managed redis-server). */
export const fallbackLog = (): StateLogger => (defaultLog ??= pino({ level: process.env.LOG_LEVEL || 'info' }));

/** Reconnect attempts come quickly, then once a second, so service resumes within a second of Redis's return. */
const reconnectDelayMs = (attempt: number) => Math.min(100 * attempt, 1000);

/**
 * Where to connect: a redis:// URL, or `redis-sentinel://host:port,host:port/<master>` for the
 * master a set of Sentinels names (followed through failovers).
 */
export function connectionOf(url: string): RedisOptions {
  const sentinel = /^redis-sentinel:\/\/([^/]+)\/(.+)$/.exec(url);
  if (!sentinel) return {};
  const sentinels = sentinel[1]!.split(',').map((address) => {
    const at = address.lastIndexOf(':');
    return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
  });
  return { sentinels, name: decodeURIComponent(sentinel[2]!), sentinelRetryStrategy: reconnectDelayMs };
}

/** Opens a Redis connection; `name` shows in CLIENT LIST so connections can be told apart. */
export function createRedisClient(url: string, name: string, extra: RedisClientOptions = {}): Redis {
  const { log = fallbackLog(), onError, ...options } = extra;
  const settings: RedisOptions = {
    connectionName: `ferrum:${name}`,
    maxRetriesPerRequest: 20,
    enableAutoPipelining: true,
    retryStrategy: reconnectDelayMs,
    ...options,
  };
  const sentinel = connectionOf(url);
  const client = sentinel.sentinels ? new Redis({ ...settings, ...sentinel }) : new Redis(url, settings);
  reportConnectionState(client, name, log);
  if (onError) client.on('error', (error: unknown) => onError(redisErrorKind(error)));
  return client;
}

/**
 * Options of a connection serving requests: while Redis is unreachable its commands fail at
 * once (no offline queue) or after `commandTimeoutMs` (Redis hung), so callers answer 503
 * instead of waiting. Never for blocking commands (BLMOVE, BullMQ workers).
 */
export function failFast(commandTimeoutMs: number): RedisOptions {
  return { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: commandTimeoutMs };
}

/**
 * ioredis reports every failed reconnect as an 'error' event (and prints a stack trace when
 * nobody listens): one line when the connection is lost, one when it is back.
 */
function reportConnectionState(client: Redis, name: string, log: StateLogger): void {
  const health = new FailureLog(log, `redis connection ${name}`);
  client.on('error', (error: unknown) => void health.failed(error));
  client.on('ready', () => health.succeeded());
}

/** Waits until `client` is connected (a fail-fast connection refuses commands before that). */
export async function waitForRedis(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return;
  if (client.status === 'wait') await client.connect().catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => done();
    const timer = setTimeout(() => done(new Error(`Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
    client.on('ready', onReady);
    if (client.status === 'ready') done();
  });
}

const UNAVAILABLE_MESSAGES = [
  "Stream isn't writeable",
  'Connection is closed',
  'Command timed out',
  'Reached the max retries per request limit',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'LOADING',
  'MASTERDOWN',
  'READONLY',
  'CLUSTERDOWN',
  'TRYAGAIN',
  'Failed to refresh slots cache',
  'None of startup nodes is available',
  'All sentinels are unreachable',
];

/** What a request that could not reach Redis answers (with status 503 and Retry-After). */
export const REDIS_UNAVAILABLE = {
  message: 'Service temporarily unavailable: the data store cannot be reached; retry shortly',
  retryAfterSeconds: 1,
};

/** Whether `error` says Redis could not be reached or could not serve now (worth a 503 and a retry). */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  return UNAVAILABLE_MESSAGES.some((text) => error.message.includes(text));
}

/** Builds key names under the configured prefix: keys.of('user', id) → 'ferrum:user:<id>'. */
export class KeySpace {
  constructor(readonly prefix: string) {}

  of(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }
}

/** The shared Redis handles every service uses. */
export interface RedisContext {
  /** Commands and scripts. */
  redis: Redis;
  keys: KeySpace;
  url: string;
}

export async function pingMs(redis: Redis): Promise<number> {
  const started = performance.now();
  await redis.ping();
  return performance.now() - started;
}
