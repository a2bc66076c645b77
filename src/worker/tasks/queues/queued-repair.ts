import type { RedisClient } from '../../../core/redis.js';
import type { WorkerKeys } from '../../keys.js';
import { scripts } from '../scripts.js';

/** Entries checked per script run. */
const BATCH = 200;
/** A missing task younger than this may still be being written by its request: its entry stays. */
const WRITE_GRACE_SECONDS = 60;

/**
 * Gives back the queued_tasks and stored_bytes room of tasks that left the queue without
 * releasing it: the previous release takes and ends tasks without knowing of the entries this
 * one reserves (task-lib.lua), so beside it a project's count could only grow. Run by the
 * task sweeper on each project; it reads the project's entries a batch at a time.
 */
export class QueuedTaskRepair {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
  ) {}

  /** Returns how many entries were released. */
  async repair(projectId: string): Promise<number> {
    const payloads = this.keys.queuedPayloads(projectId);
    const total = this.keys.queuedPayloadTotal(projectId);
    let released = 0;
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(payloads, cursor, 'COUNT', BATCH);
      cursor = next;
      const ids = flat.filter((_, i) => i % 2 === 0);
      if (ids.length === 0) continue;
      const nowSeconds = Math.floor(Date.now() / 1000);
      released += await scripts.repairQueuedTasks.run<number>(
        this.redis,
        [payloads, total, ...ids.map((id) => this.keys.task(projectId, id))],
        [String(nowSeconds), String(WRITE_GRACE_SECONDS), ...ids],
      );
    } while (cursor !== '0');
    return released;
  }
}
