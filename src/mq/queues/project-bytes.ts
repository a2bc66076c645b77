import { zsetMembers } from '../../auth/project-lifecycle.js';
import type { KeySpace, RedisClient } from '../../core/redis.js';
import { RefreshAheadCache } from '../../core/refresh-ahead-cache.js';
import { MqKeys, QUEUE_KEY } from '../scripts.js';

/** How long a project's message bytes, once summed, are used before they are summed again. */
const FRESH_MS = 1000;

/**
 * The bytes of a project's message bodies: the sum of its queues' `bytes` (each kept exactly by
 * the message scripts, under the queue's own hash tag, so no one script can total them on a
 * Redis Cluster). A sum is reused for FRESH_MS at most, plus what this process posted since; a
 * project posting steadily has it summed again in the background before then (one sum at a
 * time), so its posts do not wait for the sum.
 */
export class ProjectMessageBytes {
  private readonly keys: MqKeys;
  private readonly recent = new RefreshAheadCache<number>(FRESH_MS, (projectId) => this.sum(projectId));

  constructor(
    private readonly redis: RedisClient,
    keys: KeySpace,
  ) {
    this.keys = new MqKeys(keys);
  }

  /** The project's message bytes; `fresh` sums them again whatever was summed lately. */
  async total(projectId: string, fresh = false): Promise<number> {
    if (!fresh) return (await this.recent.get(projectId)) ?? this.sum(projectId);
    const readFrom = Date.now();
    const sum = await this.sum(projectId);
    this.recent.set(projectId, sum, readFrom);
    return sum;
  }

  private async sum(projectId: string): Promise<number> {
    let sum = 0;
    for await (const names of zsetMembers(this.redis, this.keys.queueIndex(projectId))) {
      const counts = await Promise.all(
        names.map((name) => this.redis.hget(this.keys.queue({ projectId, name })[QUEUE_KEY]!, 'bytes')),
      );
      sum += counts.reduce((total, count) => total + Number(count ?? 0), 0);
    }
    return sum;
  }

  /** This process just stored `bytes` more of the project's bodies. */
  added(projectId: string, bytes: number): void {
    this.recent.update(projectId, (known) => known + bytes);
  }
}
