import type { Redis } from 'ioredis';
import { loadLua } from '../../core/lua.js';
import type { TaskDistribution } from './distribution.js';
import type { WorkerKeys } from '../keys.js';
import type { TaskStore } from './task-store.js';
import type { Task } from '../types.js';

const resumeTaskQueue = loadLua(import.meta.url, 'resume-task-queue');

/**
 * Pausing a code package's task queue: runners set its tasks aside when they take them
 * (take-task.lua); resume queues those again in their order, each with the revision
 * it was queued with.
 */
export class TaskQueuePause {
  constructor(
    private readonly redis: Redis,
    private readonly keys: WorkerKeys,
    private readonly store: TaskStore,
    private readonly distribution: TaskDistribution,
  ) {}

  async pause(projectId: string, codeId: string): Promise<void> {
    await this.redis.set(this.keys.codePaused(projectId, codeId), String(Date.now()));
  }

  /** Returns how many tasks were queued again. */
  async resume(projectId: string, codeId: string): Promise<number> {
    const parkedKey = this.keys.parkedTasks(projectId, codeId);
    const ids = await resumeTaskQueue.run<string[]>(this.redis, [this.keys.codePaused(projectId, codeId), parkedKey]);
    if (ids.length === 0) return 0;
    const found = await Promise.all(ids.map((id) => this.store.find(projectId, id)));
    const waiting = found.filter((task): task is Task => task?.status === 'queued');
    await this.distribution.add(waiting, `-resumed-${Date.now()}`);
    await this.redis.zrem(parkedKey, ...ids);
    return waiting.length;
  }
}
