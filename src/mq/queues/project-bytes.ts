import { zsetMembers } from '../../auth/project-lifecycle.js';
import type { KeySpace, RedisClient } from '../../core/redis.js';
import { TtlCache } from '../../core/ttl-cache.js';
import { MqKeys, QUEUE_KEY } from '../scripts.js';

/** How long a project's message bytes, once summed, are used before they are summed again. */
const FRESH_MS = 1000;

/**
 * The bytes of a project's message bodies: the sum of its queues' `bytes` (each kept exactly by
 * the message scripts, under the queue's own hash tag, so no one script can total them on a
 * Redis Cluster). A sum is reused for FRESH_MS, plus what this process posted since.
 */
export class ProjectMessageBytes {
  private readonly keys: MqKeys;
  private readonly recent = new TtlCache<number>(FRESH_MS);

  constructor(
    private readonly redis: RedisClient,
    keys: KeySpace,
  ) {
    this.keys = new MqKeys(keys);
  }

  /** The project's message bytes; `fresh` sums them again whatever was summed lately. */
  async total(projectId: string, fresh = false): Promise<number> {
    const known = fresh ? undefined : this.recent.get(projectId);
    if (known !== undefined) return known;
    let sum = 0;
    for await (const names of zsetMembers(this.redis, this.keys.queueIndex(projectId))) {
      const counts = await Promise.all(
        names.map((name) => this.redis.hget(this.keys.queue({ projectId, name })[QUEUE_KEY]!, 'bytes')),
      );
      sum += counts.reduce((total, count) => total + Number(count ?? 0), 0);
    }
    this.recent.set(projectId, sum);
    return sum;
  }

  /** This process just stored `bytes` more of the project's bodies. */
  added(projectId: string, bytes: number): void {
    const known = this.recent.get(projectId);
    if (known !== undefined) this.recent.set(projectId, known + bytes);
  }
}
