import { ProjectMessageBytes } from '../mq/queues/project-bytes.js';
import { boundedAdd, boundedRelease } from '../core/bounded-counter.js';
import type { KeySpace, RedisClient } from '../core/redis.js';
import { storedBytesKey, STORING_SERVICES, type StoringService } from './stored-bytes-keys.js';

export { STORING_SERVICES, type StoringService } from './stored-bytes-keys.js';

/** What a project stores that is not one of the counted services' own: its message bodies. */
export type ProjectPart = StoringService | 'messages';

/**
 * A project's stored bytes: one counter per service, and its message bodies summed over its
 * queues (see ProjectMessageBytes). A write reserves its bytes before it stores anything (a
 * refused one leaves nothing behind); a deletion releases them.
 */
export class ProjectStorage {
  readonly messages: ProjectMessageBytes;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {
    this.messages = new ProjectMessageBytes(redis, keys);
  }

  counter(service: StoringService, projectId: string): string {
    return storedBytesKey(this.keys, service, projectId);
  }

  /** Bytes the project stores over every service. */
  async total(projectId: string): Promise<number> {
    const [others, messages] = await Promise.all([this.others('messages', projectId), this.messages.total(projectId)]);
    return others + messages;
  }

  /** How far `service`'s bytes may grow: the quota less what the other parts store. */
  async allowance(service: ProjectPart, projectId: string, quota: number): Promise<number> {
    return quota - (await this.others(service, projectId));
  }

  /** Adds `bytes` unless the project would pass `quota`; false (nothing added) then. */
  async reserve(service: StoringService, projectId: string, bytes: number, quota: number): Promise<boolean> {
    const allowance = await this.allowance(service, projectId, quota);
    return boundedAdd(this.redis, this.counter(service, projectId), bytes, allowance);
  }

  async release(service: StoringService, projectId: string, bytes: number): Promise<void> {
    await boundedRelease(this.redis, this.counter(service, projectId), bytes);
  }

  /** What every part but `part` stores. */
  private async others(part: ProjectPart, projectId: string): Promise<number> {
    const services = STORING_SERVICES.filter((service) => service !== part);
    const counts = await Promise.all([
      ...services.map((service) => this.read(service, projectId)),
      part === 'messages' ? 0 : this.messages.total(projectId),
    ]);
    return counts.reduce((sum, count) => sum + count, 0);
  }

  private async read(service: StoringService, projectId: string): Promise<number> {
    return Number((await this.redis.get(this.counter(service, projectId))) ?? 0);
  }
}
