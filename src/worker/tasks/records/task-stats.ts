import type { RedisClient } from '../../../core/redis.js';
import type { WorkerKeys } from '../../keys.js';
import { TASK_STATUSES, type TaskStatus } from '../../types.js';

/** Epoch ms bounds on a task's last change; either may be open. */
export interface StatsRange {
  from?: number;
  to?: number;
}

/** Counts of a code package's tasks by status, read from its per-status indexes (ZCOUNT each). */
export class TaskStats {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
  ) {}

  async countByStatus(projectId: string, codeId: string, range: StatsRange): Promise<Record<TaskStatus, number>> {
    const min = range.from ?? '-inf';
    const max = range.to ?? '+inf';
    const pipeline = this.redis.pipeline();
    for (const key of this.keys.codeStatusIndexes(projectId, codeId)) pipeline.zcount(key, min, max);
    const results = (await pipeline.exec()) ?? [];
    const counts = {} as Record<TaskStatus, number>;
    TASK_STATUSES.forEach((status, i) => {
      const [error, count] = results[i] ?? [null, 0];
      if (error) throw error;
      counts[status] = Number(count);
    });
    return counts;
  }
}
