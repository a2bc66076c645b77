import { Authenticator } from '../src/auth/authenticator.js';
import { IdentityStore } from '../src/auth/identity-store.js';
import { EventBus } from '../src/core/bus.js';
import type { Config } from '../src/core/config.js';
import { createRedisClient, failFast, KeySpace, waitForRedis } from '../src/core/redis.js';
import { createMetrics } from '../src/metrics/registry.js';
import type { AppContext } from '../api/context.js';

export interface OpenedContext {
  ctx: AppContext;
  close(): Promise<void>;
}

/** Opens the Redis connections and services one controller process shares across requests. */
export async function openAppContext(config: Config, redisUrl: string): Promise<OpenedContext> {
  const redis = createRedisClient(redisUrl, 'commands', failFast(config.redis.commandTimeoutMs));
  const subscriber = createRedisClient(redisUrl, 'subscriber', { enableAutoPipelining: false });
  try {
    await waitForRedis(redis, config.redis.connectTimeoutMs);
  } catch (error) {
    redis.disconnect();
    subscriber.disconnect();
    throw new Error(`Redis at ${redisUrl} is unreachable: ${(error as Error).message}`);
  }
  const keys = new KeySpace(config.keyPrefix);
  const bus = new EventBus(subscriber, redis);
  const identity = new IdentityStore(redis, keys);
  const authenticator = new Authenticator(identity, bus, keys, config.tokenCacheMs);
  await authenticator.start();
  const ctx: AppContext = {
    config,
    redis,
    redisUrl,
    keys,
    bus,
    identity,
    authenticator,
    metrics: createMetrics(),
  };
  return {
    ctx,
    async close() {
      await bus.close();
      redis.disconnect();
    },
  };
}
