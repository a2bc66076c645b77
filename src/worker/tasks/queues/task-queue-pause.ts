import type { RedisClient } from '../../../core/redis.js';
import { scripts } from '../scripts.js';
import type { TaskDistribution } from './distribution.js';
import type { WorkerKeys } from '../../keys.js';
import type { TaskStore } from '../records/task-store.js';
import type { Task } from '../../types.js';

/** Parked tasks queued again per step: a huge parked set is worked through in bounded steps. */
const RESUME_CHUNK = 500;

/**
 * Pausing a code package's task queue: runners set its tasks aside when they take them
 * (take-task.lua); resume queues those again in their order, each with the revision
 * it was queued with.
 */
export class TaskQueuePause {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
    private readonly store: TaskStore,
    private readonly distribution: TaskDistribution,
  ) {}

  async pause(projectId: string, codeId: string): Promise<void> {
    await this.redis.set(this.keys.codePaused(projectId, codeId), String(Date.now()));
  }

  /** Which of a project's code packages have their task queue paused. */
  async pausedAmong(projectId: string, codeIds: string[]): Promise<Set<string>> {
    if (codeIds.length === 0) return new Set();
    const flags = await this.redis.mget(codeIds.map((codeId) => this.keys.codePaused(projectId, codeId)));
    return new Set(codeIds.filter((_, i) => flags[i] !== null));
  }

  /**
   * Queues again the tasks set aside while the project was suspended (the package's own pause
   * keeps them parked); a bounded batch per step. Returns how many were queued.
   */
  async requeueParked(projectId: string, codeId: string): Promise<number> {
    if ((await this.redis.exists(this.keys.codePaused(projectId, codeId))) === 1) return 0;
    const parkedKey = this.keys.parkedTasks(projectId, codeId);
    let left = await this.redis.zcard(parkedKey);
    let queued = 0;
    while (left > 0) {
      const ids = await this.redis.zrange(parkedKey, 0, Math.min(RESUME_CHUNK, left) - 1);
      if (ids.length === 0) break;
      const found = await Promise.all(ids.map((id) => this.store.find(projectId, id)));
      const waiting = found.filter((task): task is Task => task?.status === 'queued');
      await this.distribution.add(waiting, `-resumed-${Date.now()}`);
      await this.redis.zrem(parkedKey, ...ids);
      queued += waiting.length;
      left -= ids.length;
    }
    return queued;
  }

  /** Returns how many tasks were queued again. */
  async resume(projectId: string, codeId: string): Promise<number> {
    const parkedKey = this.keys.parkedTasks(projectId, codeId);
    const flag = this.keys.codePaused(projectId, codeId);
    // Those parked at the start; tasks parked again meanwhile (paused anew) wait for the next resume.
    let left = await this.redis.zcard(parkedKey);
    let queued = 0;
    do {
      const ids = await scripts.resumeTaskQueue.run<string[]>(
        this.redis,
        [flag, parkedKey],
        [Math.min(RESUME_CHUNK, left)],
      );
      if (ids.length === 0) break;
      const found = await Promise.all(ids.map((id) => this.store.find(projectId, id)));
      const waiting = found.filter((task): task is Task => task?.status === 'queued');
      await this.distribution.add(waiting, `-resumed-${Date.now()}`);
      await this.redis.zrem(parkedKey, ...ids);
      queued += waiting.length;
      left -= ids.length;
    } while (left > 0);
    return queued;
  }
}
