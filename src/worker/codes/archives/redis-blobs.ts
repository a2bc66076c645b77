import type { RedisClient } from '../../../core/redis.js';
import type { BlobStore } from './blobs.js';

/** Blobs as plain Redis strings; keys are full key names chosen by the caller. */
export class RedisBlobStore implements BlobStore {
  constructor(private readonly redis: RedisClient) {}

  async put(key: string, data: Buffer): Promise<void> {
    await this.redis.set(key, data);
  }

  async get(key: string): Promise<Buffer | null> {
    return this.redis.getBuffer(key);
  }

  async delete(keys: string[]): Promise<void> {
    if (keys.length > 0) await this.redis.unlink(...keys);
  }
}
