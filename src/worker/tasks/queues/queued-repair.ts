import type { RedisClient } from '../../../core/redis.js';
import type { WorkerKeys } from '../../keys.js';
import { scripts } from '../scripts.js';

/** Entries checked per script run. */
const BATCH = 200;
/**
 * Entries checked per project and sweep at most: a project with more has them gone through over
 * several sweeps, its pass resuming where the last one stopped.
 */
export const CHECKED_PER_SWEEP = 1000;
/** A missing task younger than this may still be being written by its request: its entry stays. */
const WRITE_GRACE_SECONDS = 60;

/** What one repair of a project did: entries read, and how many of them it released. */
export interface RepairPass {
  checked: number;
  released: number;
}

/**
 * Gives back the queued_tasks and stored_bytes room of tasks that left the queue without
 * releasing it: the previous release takes and ends tasks without knowing of the entries this
 * one reserves (task-lib.lua), so beside it a project's count could only grow. Run by the
 * task sweeper on each project. Without such tasks every entry has its task in the queued
 * index, so a project with no more entries than queued tasks costs two counts; another has its
 * entries read, at most CHECKED_PER_SWEEP a sweep.
 */
export class QueuedTaskRepair {
  /** Where the pass through a project's entries resumes (only projects part way through). */
  private readonly cursors = new Map<string, string>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
  ) {}

  async repair(projectId: string): Promise<RepairPass> {
    let cursor = this.cursors.get(projectId) ?? '0';
    if (cursor === '0' && !(await this.holdsStaleEntries(projectId))) return { checked: 0, released: 0 };
    const pass = { checked: 0, released: 0 };
    do {
      const [next, flat] = await this.redis.hscan(this.keys.queuedPayloads(projectId), cursor, 'COUNT', BATCH);
      cursor = next;
      const ids = flat.filter((_, i) => i % 2 === 0);
      pass.checked += ids.length;
      if (ids.length > 0) pass.released += await this.releaseLeft(projectId, ids);
    } while (cursor !== '0' && pass.checked < CHECKED_PER_SWEEP);
    if (cursor === '0') this.cursors.delete(projectId);
    else this.cursors.set(projectId, cursor);
    return pass;
  }

  /**
   * More entries than queued tasks: some tasks left the queue unreleased. (The quota counts the
   * larger of the two, so stale entries within the queued count pass no quota; an earlier
   * release's queued tasks have no entry.)
   */
  private async holdsStaleEntries(projectId: string): Promise<boolean> {
    const [entries, queued] = await Promise.all([
      this.redis.hlen(this.keys.queuedPayloads(projectId)),
      this.redis.zcard(this.keys.tasksWithStatus(projectId, 'queued')),
    ]);
    return entries > queued;
  }

  /** Releases the entries of `ids` whose task is no longer queued; returns how many. */
  private releaseLeft(projectId: string, ids: string[]): Promise<number> {
    const nowSeconds = Math.floor(Date.now() / 1000);
    return scripts.repairQueuedTasks.run<number>(
      this.redis,
      [
        this.keys.queuedPayloads(projectId),
        this.keys.queuedPayloadTotal(projectId),
        ...ids.map((id) => this.keys.task(projectId, id)),
      ],
      [String(nowSeconds), String(WRITE_GRACE_SECONDS), ...ids],
    );
  }
}
