import type { RedisClient } from '../../../core/redis.js';
import type { WorkerKeys } from '../../keys.js';

/** A task holding one max_concurrency slot of its code package (taken by TaskStatusChanges.take). */
export interface HeldSlot {
  projectId: string;
  codeId: string;
  taskId: string;
}

/** The slots runners hold: renewed while their runner heartbeats, given back when a run ends. */
export class ConcurrencyGate {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
  ) {}

  /** Pushes the leases of held slots `leaseMs` ahead; a slot already given back stays free (XX). */
  async renew(slots: HeldSlot[], leaseMs: number): Promise<void> {
    if (slots.length === 0) return;
    const expiry = Date.now() + leaseMs;
    // One command per slot (auto-pipelined): the gates of different projects sit on different cluster slots.
    await Promise.all(
      slots.map((slot) =>
        this.redis.zadd(this.keys.concurrencyGate(slot.projectId, slot.codeId), 'XX', expiry, slot.taskId),
      ),
    );
  }

  async release(slot: HeldSlot): Promise<void> {
    await this.redis.zrem(this.keys.concurrencyGate(slot.projectId, slot.codeId), slot.taskId);
  }
}
