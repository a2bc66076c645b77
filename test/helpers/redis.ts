import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startManagedRedis, type ManagedRedis } from '../../src/core/managed-redis.js';
import type { RedisClient } from '../../src/core/redis.js';
import { scanKeys } from '../../src/core/scan.js';

/** A private, throwaway redis-server on a free loopback port, for one test file. */
export async function startTestRedis(): Promise<ManagedRedis & { dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-test-redis-'));
  const redis = await startManagedRedis({ dataDir, persistent: false });
  return {
    ...redis,
    dataDir,
    async stop() {
      await redis.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every key matching `pattern`, on every master (KEYS on a Redis Cluster would ask one node only). */
export async function keysMatching(redis: RedisClient, pattern: string): Promise<string[]> {
  const found: string[] = [];
  for await (const keys of scanKeys(redis, pattern, 1000)) found.push(...keys);
  return found;
}
