import path from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { createRedisClient, KeySpace, type RedisClient } from '../../src/core/redis.js';

/** A domain test file's share of its worker's Redis: connections, and a key prefix of its own. */
export interface SharedRedis {
  /** The file's connection (for commands and scripts). */
  redis: RedisClient;
  /** The URL of this worker's database (for what opens its own connections, e.g. BullMQ's). */
  url: string;
  /** Keys under `ferrum-test:<file name>:`, so what a file leaves behind names the file. */
  keys: KeySpace;
  /** Another connection to the same database (a subscriber, a second client); closed after the file. */
  connect(name: string): RedisClient;
}

const silentLog = { info: () => undefined, warn: () => undefined };

/**
 * The Redis of this vitest worker (started once for the run by shared-redis-setup.ts), flushed
 * before the file's tests: files on one worker run one after another, so each starts empty. A
 * worker slot beyond the servers started (another maxWorkers) takes a further database of one.
 */
export function useSharedRedis(): SharedRedis {
  const opened: RedisClient[] = [];
  const shared = {
    url: '',
    connect(name: string) {
      const client = createRedisClient(shared.url, name, { log: silentLog });
      opened.push(client);
      return client;
    },
  } as SharedRedis;
  beforeAll(async (file) => {
    shared.url = urlOfThisWorker();
    shared.redis = shared.connect('domain-test');
    await shared.redis.flushdb();
    shared.keys = new KeySpace(`ferrum-test:${path.basename(file.name, '.test.ts')}:`);
  });
  afterAll(async () => {
    await Promise.all(opened.map((client) => client.quit().catch(() => client.disconnect())));
  });
  return shared;
}

function urlOfThisWorker(): string {
  const urls = inject('sharedRedisUrls');
  if (!urls?.length) throw new Error('no shared Redis: run this file in the redis lane (its globalSetup starts them)');
  const slot = Number(process.env.VITEST_POOL_ID ?? '1') - 1;
  return `${urls[slot % urls.length]!}/${Math.floor(slot / urls.length)}`;
}
