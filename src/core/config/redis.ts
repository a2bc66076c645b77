import os from 'node:os';
import path from 'node:path';
import { type Env, intFrom, MIB, nonEmpty, oneOf } from './env.js';

/** Where the data lives: Redis (given, or the managed one) and the data folder. */
export interface StoreSettings {
  /** When undefined, the all-in-one process starts a managed redis-server. */
  redisUrl: string | undefined;
  keyPrefix: string;
  dataDir: string;
  redis: RedisConfig;
}

/** How Ferrum uses its Redis, and how it runs the managed one. */
export interface RedisConfig {
  /** How long a request's Redis command may take before it fails (and the request answers 503), in ms. */
  commandTimeoutMs: number;
  /** How long a starting process waits for Redis before giving up, in ms. */
  connectTimeoutMs: number;
  /** appendfsync of the managed redis-server: always, everysec or no. */
  appendfsync: 'always' | 'everysec' | 'no';
  /** How many times in a row the managed redis-server may fail to come back before the process exits. */
  restartAttempts: number;
  /** maxmemory of the managed redis-server in bytes (policy noeviction); 0 = no limit. */
  maxmemoryBytes: number;
}

export function readStoreSettings(env: Env): StoreSettings {
  return {
    redisUrl: redisUrlFrom(env),
    keyPrefix: env.FERRUM_KEY_PREFIX || 'ferrum:',
    dataDir: path.resolve(env.FERRUM_DATA_DIR || './.ferrum'),
    redis: {
      commandTimeoutMs: Math.max(10, intFrom(env, 'FERRUM_REDIS_COMMAND_TIMEOUT_MS', 1000)),
      connectTimeoutMs: Math.max(100, intFrom(env, 'FERRUM_REDIS_CONNECT_TIMEOUT_MS', 30_000)),
      appendfsync: oneOf(env, 'FERRUM_REDIS_APPENDFSYNC', ['always', 'everysec', 'no'] as const, 'everysec'),
      restartAttempts: Math.max(1, intFrom(env, 'FERRUM_REDIS_RESTART_ATTEMPTS', 5)),
      maxmemoryBytes: Math.max(0, intFrom(env, 'FERRUM_REDIS_MAXMEMORY_MB', defaultMaxmemoryMb())) * MIB,
    },
  };
}

/**
 * REDIS_URL as the connection spec createRedisClient takes: the URL itself (standalone),
 * `redis-sentinel://host:port,…/<master>` built from FERRUM_REDIS_SENTINELS (or REDIS_URL's
 * comma-separated addresses) and FERRUM_REDIS_SENTINEL_MASTER, or
 * `redis-cluster://[user:password@]host:port,…` for a Redis Cluster's seed nodes.
 */
function redisUrlFrom(env: Env): string | undefined {
  const mode = oneOf(env, 'FERRUM_REDIS_MODE', ['standalone', 'sentinel', 'cluster'] as const, 'standalone');
  if (mode === 'standalone') return nonEmpty(env.REDIS_URL);
  if (mode === 'cluster') return clusterUrlFrom(env);
  const sentinels = nonEmpty(env.FERRUM_REDIS_SENTINELS);
  const raw = sentinels ?? nonEmpty(env.REDIS_URL);
  if (!raw) throw new Error('FERRUM_REDIS_MODE=sentinel needs FERRUM_REDIS_SENTINELS (host:port,host:port)');
  const { credentials, nodes } = seedListOf(raw, sentinels ? 'FERRUM_REDIS_SENTINELS' : 'REDIS_URL');
  const master = env.FERRUM_REDIS_SENTINEL_MASTER || 'mymaster';
  return `redis-sentinel://${credentials}${nodes.join(',')}/${encodeURIComponent(master)}`;
}

/**
 * FERRUM_REDIS_MODE=cluster: REDIS_URL names one or more seed nodes, comma-separated, each
 * `host:port` or `redis://[user:password@]host:port` (credentials are taken from the first that has them).
 */
function clusterUrlFrom(env: Env): string {
  const raw = nonEmpty(env.REDIS_URL);
  if (!raw) throw new Error('FERRUM_REDIS_MODE=cluster needs REDIS_URL naming seed nodes (host:port,host:port)');
  const { credentials, nodes } = seedListOf(raw, 'REDIS_URL');
  return `redis-cluster://${credentials}${nodes.join(',')}`;
}

/** `host:port` entries of a comma-separated list, and the `user:password@` of the first entry that has them. */
function seedListOf(raw: string, setting: string): { credentials: string; nodes: string[] } {
  let credentials = '';
  const nodes = raw.split(',').map((entry) => {
    const text = entry.trim();
    const url = new URL(/^[a-z]+:\/\//.test(text) ? text : `redis://${text}`);
    if (url.protocol === 'rediss:') {
      throw new Error(
        `${setting} entry "${text}": TLS (rediss://) is supported only with FERRUM_REDIS_MODE=standalone; use redis:// entries for sentinel and cluster`,
      );
    }
    if (url.protocol !== 'redis:') throw new Error(`${setting} entry "${text}": only redis:// entries are supported`);
    if (!url.hostname || !url.port) throw new Error(`${setting} entry "${text}" must be host:port`);
    if (!credentials && url.password) credentials = `${url.username}:${url.password}@`;
    return `${url.hostname}:${url.port}`;
  });
  return { credentials, nodes };
}

/** Half of the machine's memory: room for Redis's own overhead, the controller and the runner. */
function defaultMaxmemoryMb(): number {
  return Math.max(64, Math.floor(os.totalmem() / MIB / 2));
}
