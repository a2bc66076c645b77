import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { pino } from 'pino';
import { enforceCommandDeadlines } from './command-deadlines.js';
import { ERRORS } from './errors.js';
import { FailureLog, type StateLogger } from './failure-log.js';

export interface RedisClientOptions extends RedisOptions {
  /** Where the connection's state changes (lost, restored) are logged; a JSON logger on stdout by default. */
  log?: StateLogger;
  /** Told of every connection error, by kind (see redisErrorKind), e.g. to count them in a metric. */
  onError?: (kind: string) => void;
  /**
   * A command unanswered this long fails with ioredis's "Command timed out" (see failFast); its
   * `commandTimeout`, which arms a timer per command, is left unset.
   */
  commandDeadlineMs?: number;
}

/**
 * A bounded name for a Redis error: the system error code of a lost connection (ECONNREFUSED,
 * ECONNRESET, ETIMEDOUT, …), `timeout` for a command that got no answer in time, `unavailable`
 * for a command refused while disconnected, `OOM` for a write refused by a full Redis (a
 * transaction's too), the Redis error prefix of a reply (LOADING,
 * READONLY, …), else `other`.
 */
export function redisErrorKind(error: unknown): string {
  if (!(error instanceof Error)) return 'other';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  if (error.message === 'Command timed out') return 'timeout';
  if (isRedisFull(error)) return 'OOM';
  // A reply names its own kind, even one worth a 503 (READONLY, OOM, …).
  if (error.name === 'ReplyError') return /^[A-Z]+/.exec(error.message)?.[0] ?? 'reply';
  if (isRedisUnavailable(error)) return 'unavailable';
  return 'other';
}

let defaultLog: StateLogger | null = null;
/** The JSON logger of code that was given none (connection state changes, the managed redis-server). */
export const fallbackLog = (): StateLogger => (defaultLog ??= pino({ level: process.env.LOG_LEVEL || 'info' }));

/** Reconnect attempts come quickly, then once a second, so service resumes within a second of Redis's return. */
const reconnectDelayMs = (attempt: number) => Math.min(100 * attempt, 1000);

/** A connection to standalone Redis (or the master Sentinels name), or to a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/**
 * Where to connect: a redis:// URL, or `redis-sentinel://[user:password@]host:port,…/<master>`
 * for the master a set of Sentinels names (followed through failovers; the credentials are the master's).
 */
export function connectionOf(url: string): RedisOptions {
  const sentinel = /^redis-sentinel:\/\/([^/]+)\/(.+)$/.exec(url);
  if (!sentinel) return {};
  const { nodes: sentinels, username, password } = seedsOf(sentinel[1]!);
  return {
    sentinels,
    name: decodeURIComponent(sentinel[2]!),
    sentinelRetryStrategy: reconnectDelayMs,
    // Sentinels announce a new master at once (+switch-master), but reconfigure the old one
    // only at their next look at it (up to 10 s): without this the connection keeps writing
    // to the old master meanwhile, and those acknowledged writes are dropped when it resyncs.
    failoverDetector: true,
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
  };
}

/** Opens a Redis connection; `name` shows in CLIENT LIST so connections can be told apart. */
export function createRedisClient(url: string, name: string, extra: RedisClientOptions = {}): RedisClient {
  const { log = fallbackLog(), onError, commandDeadlineMs, ...options } = extra;
  const settings: RedisOptions = {
    connectionName: `ferrum:${name}`,
    maxRetriesPerRequest: 20,
    enableAutoPipelining: true,
    retryStrategy: reconnectDelayMs,
    ...options,
  };
  const client = url.startsWith(CLUSTER_SCHEME) ? openCluster(url, settings) : openStandalone(url, settings);
  reportConnectionState(client, name, log);
  if (commandDeadlineMs !== undefined) {
    const connections = () => (isCluster(client) ? client.nodes('all') : [client]);
    client.once('end', enforceCommandDeadlines(connections, commandDeadlineMs));
  }
  if (onError) {
    client.on('error', (error: unknown) => onError(redisErrorKind(error)));
    if (isCluster(client)) client.on('node error', (error: unknown) => onError(redisErrorKind(error)));
  }
  return client;
}

function openStandalone(url: string, settings: RedisOptions): Redis {
  const sentinel = connectionOf(url);
  return sentinel.sentinels ? new Redis({ ...settings, ...sentinel }) : new Redis(url, settings);
}

const CLUSTER_SCHEME = 'redis-cluster://';

/** `redis-cluster://[user:password@]host:port,host:port`: the seed nodes of a Redis Cluster. */
export function clusterSeedsOf(url: string): Seeds {
  return seedsOf(url.slice(CLUSTER_SCHEME.length));
}

interface Seeds {
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
}

/** `[user:password@]host:port,host:port` as addresses and (URL-encoded) credentials. */
function seedsOf(list: string): Seeds {
  const at = list.lastIndexOf('@');
  const credentials = at >= 0 ? list.slice(0, at) : '';
  const nodes = (at >= 0 ? list.slice(at + 1) : list).split(',').map((address) => {
    const colon = address.lastIndexOf(':');
    return colon < 0
      ? { host: address, port: 6379 }
      : { host: address.slice(0, colon), port: Number(address.slice(colon + 1)) };
  });
  if (!credentials) return { nodes };
  const colon = credentials.indexOf(':');
  const username = colon < 0 ? '' : decodeURIComponent(credentials.slice(0, colon));
  const password = decodeURIComponent(colon < 0 ? credentials : credentials.slice(colon + 1));
  return { nodes, ...(username ? { username } : {}), password };
}

/**
 * A Redis Cluster connection. Connection-wide settings (offline queue, auto-pipelining,
 * reconnecting) belong to the cluster; the rest (timeouts, retries, name) to each node's connection.
 */
function openCluster(url: string, settings: RedisOptions): Cluster {
  const { nodes, username, password } = clusterSeedsOf(url);
  const { enableOfflineQueue, enableAutoPipelining, enableReadyCheck, lazyConnect, retryStrategy, ...node } = settings;
  const options: ClusterOptions = {
    clusterRetryStrategy: retryStrategy ?? reconnectDelayMs,
    enableOfflineQueue: enableOfflineQueue ?? true,
    enableAutoPipelining: enableAutoPipelining ?? true,
    enableReadyCheck: enableReadyCheck ?? true,
    lazyConnect: lazyConnect ?? false,
    slotsRefreshTimeout: 2000,
    redisOptions: { ...node, ...(username ? { username } : {}), ...(password ? { password } : {}) },
  };
  return new Cluster(nodes, options);
}

/** Whether `client` is a Redis Cluster connection (whose scans and multi-key commands go node by node). */
export function isCluster(client: RedisClient): client is Cluster {
  return client instanceof Cluster;
}

/**
 * The connections to every master: one for standalone Redis, one per master node of a
 * Cluster. SCAN and other node-local commands run on each.
 */
export function mastersOf(client: RedisClient): Redis[] {
  if (!isCluster(client)) return [client];
  const masters = client.nodes('master');
  // Before the slots are known a cluster lists no node: walking "every master" must not walk none.
  if (masters.length === 0) throw new Error("Cluster isn't ready: no master node known yet");
  return masters;
}

/**
 * Options of a connection serving requests: while Redis is unreachable its commands fail at
 * once (no offline queue) or after `commandTimeoutMs` (Redis hung), so callers answer 503
 * instead of waiting. Never for blocking commands (BLMOVE, BullMQ workers).
 */
export function failFast(commandTimeoutMs: number): RedisClientOptions {
  return { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandDeadlineMs: commandTimeoutMs };
}

/**
 * Options of a pub/sub connection: no auto-pipelining, and no ready check, whose INFO a
 * connection already in subscriber mode (subscriptions replayed on reconnect) must refuse.
 */
export const SUBSCRIBER_OPTIONS: RedisOptions = { enableAutoPipelining: false, enableReadyCheck: false };

/**
 * ioredis reports every failed reconnect as an 'error' event (and prints a stack trace when
 * nobody listens): one line when the connection is lost, one when it is back.
 */
function reportConnectionState(client: RedisClient, name: string, log: StateLogger): void {
  const health = new FailureLog(log, `redis connection ${name}`);
  client.on('error', (error: unknown) => void health.failed(error));
  client.on('ready', () => health.succeeded());
  // A Cluster reports its nodes' connection errors apart from its own, and has no event for a
  // node that is back: each node connection's own 'ready' says so.
  if (isCluster(client)) {
    const nodes = new FailureLog(log, `redis connection ${name} (cluster node)`);
    client.on('node error', (error: unknown) => void nodes.failed(error));
    client.on('+node', (node: Redis) => node.on('ready', () => nodes.succeeded()));
  }
}

/** Waits until `client` is connected (a fail-fast connection refuses commands before that). */
export async function waitForRedis(client: RedisClient, timeoutMs: number): Promise<void> {
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
  'NOREPLICAS',
  'CLUSTERDOWN',
  'TRYAGAIN',
  // Reachable but refusing writes for now: unable to persist (a failing RDB save with
  // stop-writes-on-bgsave-error). Not the request's fault nor a bug, and it clears without a
  // restart (the disk fixed), so the client is told to retry (503, Retry-After) like for a replica
  // (READONLY), and the request is not logged as an internal error (one line per request would be
  // an error storm). A full Redis (OOM) is not this: see isRedisFull.
  'MISCONF',
  'Failed to refresh slots cache',
  'None of startup nodes is available',
  'All sentinels are unreachable',
  "Cluster isn't ready",
  'Too many Cluster redirections',
];

/** What a request that could not reach Redis answers (with status 503 and Retry-After). */
export const REDIS_UNAVAILABLE = {
  message: ERRORS.redis_unavailable.message,
  retryAfterSeconds: 1,
};

/**
 * Whether `error` says Redis could not be reached or could not serve now (worth a 503 and a
 * retry): down, hung, failing over, a replica or unable to persist.
 */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  return UNAVAILABLE_MESSAGES.some((text) => error.message.includes(text));
}

/** The reply of a Redis at `maxmemory` (noeviction) to a command that could grow its memory. */
const OUT_OF_MEMORY = 'OOM command not allowed';

/**
 * Whether `error` is Redis refusing a write because it is full (`maxmemory` under noeviction):
 * the command's own OOM reply, a script's (refused up front, or failing at a write), or a
 * transaction discarded because one of its commands was refused so. Not an outage: reads and
 * removals still work, and only freeing or adding memory ends it (docs/operations.md, "When Redis is full").
 */
export function isRedisFull(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.message.includes(OUT_OF_MEMORY)) return true;
  const previous = (error as { previousErrors?: unknown }).previousErrors;
  return Array.isArray(previous) && previous.some((cause) => isRedisFull(cause));
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
  redis: RedisClient;
  keys: KeySpace;
  url: string;
}

export async function pingMs(redis: RedisClient): Promise<number> {
  const started = performance.now();
  // Every master of a Cluster: one unreachable master leaves its slots' keys failing.
  await Promise.all(mastersOf(redis).map((node) => node.ping()));
  return performance.now() - started;
}
