import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/core/config.js';
import { createRedisClient, type RedisClient } from '../../src/core/redis.js';
import { startController, type RunningController } from '../../controller/main.js';
import { HttpClient } from './http.js';
import { startTestRedisOf, type TestRedisOfTopology, type TestRedisTopology } from './redis.js';
import type { TestRedisCluster } from './redis-cluster.js';
import type { TestSentinel } from './sentinel.js';

export interface TestServer {
  running: RunningController;
  url: string;
  /** The bootstrap admin token and first project. */
  token: string;
  projectId: string;
  /** An HTTP client carrying the admin token. */
  http: HttpClient;
  /** The plain redis:// URL of the test Redis (with a cluster: one of its nodes). */
  redisUrl: string;
  /** What points another process at the same Redis (REDIS_URL, and FERRUM_REDIS_MODE for a cluster). */
  redisEnv: Record<string, string>;
  /** In the cluster lane: the test Redis Cluster's handle. */
  redisCluster?: TestRedisCluster;
  /** In the sentinel lane: the Sentinel's handle (its master has one replica). */
  redisSentinel?: TestSentinel;
  /** A new connection to the test Redis, whatever its topology; close it with disconnect(). */
  openRedis(): RedisClient;
  config: Config;
  stop(): Promise<void>;
}

/**
 * Lets the server push to subscribers on this machine (tests run them on loopback). The
 * adversarial suite passes FERRUM_OUTBOUND_ALLOW: '' to see the production default.
 */
export const LOOPBACK_ALLOWED = { FERRUM_OUTBOUND_ALLOW: '127.0.0.0/8,::1' };

/**
 * A real controller on a free loopback port with its own private redis-server,
 * bootstrapped with an admin token and project. One per test file.
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServerWith(await startTestRedisOfLane(), env);
}

/**
 * startTestServer on a redis-server the caller started (to write data before the server starts,
 * or run other processes on it): the server's stop leaves that Redis running.
 */
export function startTestServerOnRedis(redisUrl: string, env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServerWith({ url: redisUrl, env: { REDIS_URL: redisUrl }, stop: async () => undefined }, env);
}

async function startTestServerWith(redis: TestRedisOfTopology, env: Record<string, string>): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-test-data-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    ...redis.env,
    FERRUM_DATA_DIR: dataDir,
    FERRUM_BOOTSTRAP_PASSWORD: 'admin-password',
    LOG_LEVEL: 'warn',
    // A Redis reply slower than 1 s (the default) is normal on a machine loaded by the suite; a
    // test of a hung Redis sets its own bound.
    FERRUM_REDIS_COMMAND_TIMEOUT_MS: '10000',
    ...LOOPBACK_ALLOWED,
    ...env,
  });
  const running = await startController(config);
  if (!running.bootstrap) throw new Error('test server was not bootstrapped');
  const { token, projectId } = running.bootstrap;
  return {
    running,
    url: running.url,
    token,
    projectId,
    http: new HttpClient(running.url, token),
    redisUrl: redis.url,
    redisEnv: redis.env,
    ...(redis.cluster ? { redisCluster: redis.cluster } : {}),
    ...(redis.sentinel ? { redisSentinel: redis.sentinel } : {}),
    openRedis: () => createRedisClient(running.ctx.redisUrl, 'test', { log: silentLog }),
    config,
    async stop() {
      await running.stop();
      await redis.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The Redis of the test lane: a Redis Cluster with FERRUM_TEST_REDIS=cluster (the `cluster`
 * lane), a Sentinel-watched master and replica with FERRUM_TEST_REDIS=sentinel (`sentinel`).
 */
function startTestRedisOfLane(): Promise<TestRedisOfTopology> {
  const lane = process.env.FERRUM_TEST_REDIS;
  const topology: TestRedisTopology = lane === 'cluster' || lane === 'sentinel' ? lane : 'standalone';
  return startTestRedisOf(topology);
}

const silentLog = { info: () => undefined, warn: () => undefined };
