import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startManagedRedis, type ManagedRedis } from '../../src/core/managed-redis.js';
import type { RedisClient } from '../../src/core/redis.js';
import { scanKeys } from '../../src/core/scan.js';
import { PortTaken, retryOnPortTaken } from './port-taken.js';
import { startTestRedisCluster, type TestRedisCluster } from './redis-cluster.js';
import { startTestSentinel, type TestSentinel } from './sentinel.js';

/**
 * A private, throwaway redis-server on a free loopback port, for one test file. The port was
 * free a moment before the server binds it; another process (a second copy of the suite) may
 * take it in between, and the server then exits at once: it is started again on another port.
 */
export async function startTestRedis(): Promise<ManagedRedis & { dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-test-redis-'));
  const redis = await startOnSomeFreePort(dataDir);
  // pid and restarts are getters of the supervisor (its prototype's, which a spread would drop).
  return {
    url: redis.url,
    port: redis.port,
    get pid() {
      return redis.pid;
    },
    get restarts() {
      return redis.restarts;
    },
    dataDir,
    async stop() {
      await redis.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function startOnSomeFreePort(dataDir: string): Promise<ManagedRedis> {
  return retryOnPortTaken(() =>
    startManagedRedis({ dataDir, persistent: false }).catch((error: Error) => {
      throw /Address already in use/.test(redisLog(dataDir)) ? new PortTaken(error.message) : error;
    }),
  );
}

function redisLog(dataDir: string): string {
  try {
    return fs.readFileSync(path.join(dataDir, 'redis.log'), 'utf8');
  } catch {
    return '';
  }
}

/** Every key matching `pattern`, on every master (KEYS on a Redis Cluster would ask one node only). */
export async function keysMatching(redis: RedisClient, pattern: string): Promise<string[]> {
  const found: string[] = [];
  for await (const keys of scanKeys(redis, pattern, 1000)) found.push(...keys);
  return found;
}

/** A private Redis of either topology, and the settings that point Ferrum at it. */
export interface TestRedisOfTopology {
  /** A plain redis:// URL (with a cluster: of one of its nodes; with Sentinel: of the first master). */
  url: string;
  /** REDIS_URL, or FERRUM_REDIS_MODE and the addresses a cluster or Sentinel is reached by. */
  env: Record<string, string>;
  /** The cluster's handle (to kill and restart its nodes), for the cluster topology. */
  cluster?: TestRedisCluster;
  /** The Sentinel's handle (to force a failover), for the sentinel topology. */
  sentinel?: TestSentinel;
  stop(): Promise<void>;
}

export type TestRedisTopology = 'standalone' | 'cluster' | 'sentinel';

/** A private redis-server, a private three-master Redis Cluster, or a master, replica and Sentinel. */
export async function startTestRedisOf(topology: TestRedisTopology): Promise<TestRedisOfTopology> {
  if (topology === 'sentinel') {
    const sentinel = await startTestSentinel();
    return {
      url: `redis://127.0.0.1:${await sentinel.masterPort()}`,
      env: {
        FERRUM_REDIS_MODE: 'sentinel',
        FERRUM_REDIS_SENTINELS: sentinel.sentinelAddress,
        FERRUM_REDIS_SENTINEL_MASTER: sentinel.masterName,
      },
      sentinel,
      stop: () => sentinel.stop(),
    };
  }
  if (topology === 'cluster') {
    const cluster = await startTestRedisCluster();
    return {
      url: `redis://127.0.0.1:${cluster.ports[0]}`,
      env: { FERRUM_REDIS_MODE: 'cluster', REDIS_URL: cluster.seeds },
      cluster,
      stop: () => cluster.stop(),
    };
  }
  const redis = await startTestRedis();
  return { url: redis.url, env: { REDIS_URL: redis.url }, stop: () => redis.stop() };
}
