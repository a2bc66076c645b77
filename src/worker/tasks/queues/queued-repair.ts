import type { RedisClient } from '../../../core/redis.js';
import type { WorkerKeys } from '../../keys.js';
import { scripts } from '../scripts.js';

/** Entries checked per script run. */
const BATCH = 200;
/**
 * Entries checked per project per call (a sweep pass): a project of 100,000 queued tasks then
 * costs a pass what one of a few thousand does, and its other entries are checked in the passes
 * that follow (where this one stopped).
 */
export const REPAIR_ENTRIES_PER_PASS = 2_000;
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

  /** Where each project's walk stopped, when it did before the end of its entries. */
  private readonly cursors = new Map<string, string>();

  /** Checks up to REPAIR_ENTRIES_PER_PASS entries, from where the last call stopped; returns how many were released. */
  async repair(projectId: string): Promise<number> {
    const payloads = this.keys.queuedPayloads(projectId);
    const total = this.keys.queuedPayloadTotal(projectId);
    let released = 0;
    let checked = 0;
    let cursor = this.cursors.get(projectId) ?? '0';
    do {
      const [next, flat] = await this.redis.hscan(payloads, cursor, 'COUNT', BATCH);
      cursor = next;
      const ids = flat.filter((_, i) => i % 2 === 0);
      checked += ids.length;
      if (ids.length === 0) continue;
      const nowSeconds = Math.floor(Date.now() / 1000);
      released += await scripts.repairQueuedTasks.run<number>(
        this.redis,
        [payloads, total, ...ids.map((id) => this.keys.task(projectId, id))],
        [String(nowSeconds), String(WRITE_GRACE_SECONDS), ...ids],
      );
    } while (cursor !== '0' && checked < REPAIR_ENTRIES_PER_PASS);
    if (cursor === '0') this.cursors.delete(projectId);
    else this.cursors.set(projectId, cursor);
    return released;
  }
}
