import os from 'node:os';
import path from 'node:path';
import { type Env, intFrom, MIB, nonEmpty } from './env.js';
import { choiceOf, defineSettings, intOf, textOf } from './setting.js';

export const REDIS_SETTINGS = defineSettings({
  FERRUM_REDIS_COMMAND_TIMEOUT_MS: {
    fallback: 1000,
    meaning:
      "a request's Redis command unanswered this long fails (within a quarter more: one sweep per connection checks) and the request answers 503 with `Retry-After` (Redis hung); with Redis unreachable requests answer 503 at once",
  },
  FERRUM_REDIS_CONNECT_TIMEOUT_MS: {
    fallback: 30_000,
    meaning: 'how long a starting controller waits for Redis before it exits with an error',
  },
  FERRUM_REDIS_RESTART_ATTEMPTS: {
    fallback: 5,
    meaning:
      'the managed `redis-server` is restarted (same port, same data folder and AOF, growing delays) when it exits on its own; after this many failed restarts in a row the process exits with status 1 so a supervisor can take over',
  },
  FERRUM_REDIS_MAXMEMORY_MB: {
    shown: "half the machine's memory (at least 64)",
    meaning:
      "`maxmemory` of the managed `redis-server`, with `maxmemory-policy noeviction`: a full Redis refuses writes (requests answer 503, `/ready` too) and never evicts a tenant's data; `0` = no limit. An external Redis: set `maxmemory` and `noeviction` on it yourself",
  },
  FERRUM_KEY_PREFIX: {
    fallback: 'ferrum:',
    meaning: 'prefix of every Redis key',
  },
  FERRUM_DATA_DIR: {
    fallback: './.ferrum',
    meaning:
      'data of the managed Redis (append-only file), `iron.json` (rewritten by every start on the managed Redis with the host, port and protocol it serves, keeping its token), `redis.log`, `redis.password`, `redis.port` (where a running one listens, for `ferrum admin token`), `server.json` (the address of the server running there now, for `ferrum admin token`); made private (0700) at start',
  },
  FERRUM_REDIS_SENTINEL_MASTER: {
    fallback: 'mymaster',
    meaning: 'sentinel mode: the master name the Sentinels monitor',
  },
  REDIS_URL: {
    shown: 'unset',
    meaning:
      'Redis to use, e.g. `redis://10.0.0.5:6379`; when unset a managed `redis-server` child is started on a free loopback port and stopped on exit; it asks for a password generated on the first start and kept in `<FERRUM_DATA_DIR>/redis.password` (0600)',
  },
  FERRUM_REDIS_SENTINELS: {
    shown: "`REDIS_URL`'s addresses",
    meaning:
      "sentinel mode: the Sentinels, `host:port,host:port`; a `redis://[:password@]` prefix gives the master's password",
  },
  FERRUM_REDIS_APPENDFSYNC: {
    fallback: 'everysec',
    meaning:
      '`appendfsync` of the managed `redis-server` (AOF is always on): `always`, `everysec` or `no`; see [Durability](operations.md#durability)',
  },
  FERRUM_REDIS_MODE: {
    fallback: 'standalone',
    meaning:
      '`standalone` (`REDIS_URL`), `sentinel` (the master named by Sentinels, followed through failovers) or `cluster` (a Redis Cluster: `REDIS_URL` lists one or more seed nodes, `host:port,host:port` or `redis://[:password@]host:port,…`); TLS (`rediss://`) only in standalone, sentinel and cluster refuse it at start; see [Redis topologies](operations.md#redis-topologies)',
  },
});

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
    keyPrefix: textOf(env, REDIS_SETTINGS.FERRUM_KEY_PREFIX),
    dataDir: path.resolve(textOf(env, REDIS_SETTINGS.FERRUM_DATA_DIR)),
    redis: {
      commandTimeoutMs: Math.max(10, intOf(env, REDIS_SETTINGS.FERRUM_REDIS_COMMAND_TIMEOUT_MS)),
      connectTimeoutMs: Math.max(100, intOf(env, REDIS_SETTINGS.FERRUM_REDIS_CONNECT_TIMEOUT_MS)),
      appendfsync: choiceOf(env, REDIS_SETTINGS.FERRUM_REDIS_APPENDFSYNC, ['always', 'everysec', 'no']),
      restartAttempts: Math.max(1, intOf(env, REDIS_SETTINGS.FERRUM_REDIS_RESTART_ATTEMPTS)),
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
  const mode = choiceOf(env, REDIS_SETTINGS.FERRUM_REDIS_MODE, ['standalone', 'sentinel', 'cluster']);
  if (mode === 'standalone') return nonEmpty(env.REDIS_URL);
  if (mode === 'cluster') return clusterUrlFrom(env);
  const sentinels = nonEmpty(env.FERRUM_REDIS_SENTINELS);
  const raw = sentinels ?? nonEmpty(env.REDIS_URL);
  if (!raw) throw new Error('FERRUM_REDIS_MODE=sentinel needs FERRUM_REDIS_SENTINELS (host:port,host:port)');
  const { credentials, nodes } = seedListOf(raw, sentinels ? 'FERRUM_REDIS_SENTINELS' : 'REDIS_URL');
  const master = textOf(env, REDIS_SETTINGS.FERRUM_REDIS_SENTINEL_MASTER);
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
