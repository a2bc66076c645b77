import { boundedAdd, boundedRelease } from './bounded-counter.js';
import type { KeySpace, RedisClient } from './redis.js';

/** The services whose stored bytes count toward a project's stored_bytes quota. */
export const STORING_SERVICES = ['code', 'cache'] as const;
export type StoringService = (typeof STORING_SERVICES)[number];

// Each counter shares its service's hash tag (worker/keys.ts, cache/keys.ts), so that service's
// scripts may change it in the same step as the data.
const TAGS: Record<StoringService, (projectId: string) => string> = {
  code: (projectId) => `{w:${projectId}}`,
  cache: (projectId) => `{cache:${projectId}}`,
};

/**
 * A project's stored bytes, one counter per service. A write reserves its bytes before it
 * stores anything (a refused one leaves nothing behind); a deletion releases them.
 */
export class ProjectStorage {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {}

  counter(service: StoringService, projectId: string): string {
    return this.keys.of(TAGS[service](projectId), 'stored-bytes');
  }

  /** Bytes the project stores over every service. */
  async total(projectId: string): Promise<number> {
    const counts = await Promise.all(STORING_SERVICES.map((service) => this.read(service, projectId)));
    return counts.reduce((sum, count) => sum + count, 0);
  }

  /** How far `service`'s counter may grow: the quota less what the other services store. */
  async allowance(service: StoringService, projectId: string, quota: number): Promise<number> {
    const others = STORING_SERVICES.filter((other) => other !== service);
    const counts = await Promise.all(others.map((other) => this.read(other, projectId)));
    return quota - counts.reduce((sum, count) => sum + count, 0);
  }

  /** Adds `bytes` unless the project would pass `quota`; false (nothing added) then. */
  async reserve(service: StoringService, projectId: string, bytes: number, quota: number): Promise<boolean> {
    const allowance = await this.allowance(service, projectId, quota);
    return boundedAdd(this.redis, this.counter(service, projectId), bytes, allowance);
  }

  async release(service: StoringService, projectId: string, bytes: number): Promise<void> {
    await boundedRelease(this.redis, this.counter(service, projectId), bytes);
  }

  private async read(service: StoringService, projectId: string): Promise<number> {
    return Number((await this.redis.get(this.counter(service, projectId))) ?? 0);
  }
}
