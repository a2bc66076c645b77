import { pino } from 'pino';
import type { Config } from '../../src/core/config.js';
import { runningManagedRedisUrl, startManagedRedis, type ManagedRedis } from '../../src/core/managed-redis.js';
import { createRedisClient, KeySpace, type RedisClient } from '../../src/core/redis.js';

/**
 * Runs `work` on the installation's Redis for an admin command (`ferrum admin ...`): REDIS_URL,
 * or the managed Redis of FERRUM_DATA_DIR (running, or started for the call and stopped after).
 * One try: a command run by hand says at once that it cannot reach Redis.
 */
export async function withAdminRedis<T>(
  config: Config,
  name: string,
  work: (redis: RedisClient, keys: KeySpace) => Promise<T>,
): Promise<T> {
  let managed: ManagedRedis | null = null;
  let url = config.redisUrl ?? runningManagedRedisUrl(config.dataDir);
  if (!url) {
    managed = await startManagedRedis({ dataDir: config.dataDir, persistent: true, appendfsync: 'always' });
    url = managed.url;
  }
  const redis = createRedisClient(url, name, { log: pino({ level: 'silent' }), maxRetriesPerRequest: 1 });
  let connectError: Error | undefined;
  redis.on('error', (error: Error) => (connectError = error));
  try {
    await redis.ping().catch((error: Error) => {
      const which = config.redisUrl ? 'REDIS_URL' : 'the managed one';
      throw new Error(`cannot reach Redis (${which}): ${(connectError ?? error).message}`);
    });
    return await work(redis, new KeySpace(config.keyPrefix));
  } finally {
    redis.disconnect();
    await managed?.stop();
  }
}
