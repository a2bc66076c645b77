import { Redis, type RedisOptions } from 'ioredis';

/** Opens a Redis connection; `name` shows in CLIENT LIST so connections can be told apart. */
export function createRedisClient(url: string, name: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, {
    connectionName: `ferrum:${name}`,
    maxRetriesPerRequest: 20,
    enableAutoPipelining: true,
    ...extra,
  });
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
