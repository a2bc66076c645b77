import type { AwsConfig } from '../../src/core/config.js';
import { newObjectId } from '../../src/core/ids.js';
import type { KeySpace, RedisClient } from '../../src/core/redis.js';

export interface AwsOwnerTag {
  key: string;
  value: string;
}

export const DEFAULT_OWNER_TAG_KEY = 'ferrum:owner';

/**
 * The installation's id: made once by whichever controller asks first and kept in Redis, so
 * every controller of one installation tags (and may terminate) the same instances.
 */
export async function installationId(redis: RedisClient, keys: KeySpace): Promise<string> {
  const key = keys.of('installation', 'id');
  await redis.set(key, newObjectId(), 'NX');
  const id = await redis.get(key);
  if (id === null) throw new Error(`installation id ${key} vanished right after it was set`);
  return id;
}

/** The configured owner tag, else `ferrum:owner=<installation id>`. */
export async function awsOwnerTag(config: AwsConfig, redis: RedisClient, keys: KeySpace): Promise<AwsOwnerTag> {
  if (config.ownerTag !== undefined) return config.ownerTag;
  return { key: DEFAULT_OWNER_TAG_KEY, value: await installationId(redis, keys) };
}
