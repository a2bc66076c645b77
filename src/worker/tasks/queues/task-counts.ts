import type { RedisClient } from '../../../core/redis.js';
import type { TaskDistribution } from './distribution.js';
import type { WorkerKeys } from '../../keys.js';
import { TASK_STATUSES, type TaskStatus } from '../../types.js';

export type TaskCounts = Record<TaskStatus, number>;

export function emptyTaskCounts(): TaskCounts {
  return Object.fromEntries(TASK_STATUSES.map((status) => [status, 0])) as TaskCounts;
}

/** Adds the task counts by status of `projectIds` to `counts`: one auto-pipelined ZCARD per status index. */
export async function addTaskCounts(
  redis: RedisClient,
  keys: WorkerKeys,
  projectIds: string[],
  counts: TaskCounts,
): Promise<void> {
  if (projectIds.length === 0) return;
  const indexes = projectIds.flatMap((projectId) => keys.statusIndexes(projectId));
  const replies = await Promise.all(indexes.map((index) => redis.zcard(index)));
  replies.forEach((count, i) => {
    counts[TASK_STATUSES[i % TASK_STATUSES.length]!] += count;
  });
}

/** Every cluster tasks were ever queued to, plus `always` (the default cluster), sorted. */
export async function knownClusters(redis: RedisClient, keys: WorkerKeys, always: string): Promise<string[]> {
  return [...new Set([always, ...(await redis.smembers(keys.clusters()))])].sort();
}

export interface ClusterTaskCounts {
  queued: number;
  active: number;
  /** When the longest-waiting due task became due (epoch ms); null when none is due. */
  oldestDueAt: number | null;
}

/** Tasks waiting for a runner and held by runners, per cluster (from the clusters' BullMQ queues). */
export async function clusterTaskCounts(
  distribution: TaskDistribution,
  clusters: string[],
): Promise<Map<string, ClusterTaskCounts>> {
  const counts = await Promise.all(
    clusters.map(async (cluster) => ({
      ...(await distribution.jobCounts(cluster)),
      oldestDueAt: await distribution.oldestDueAt(cluster),
    })),
  );
  return new Map(clusters.map((cluster, i) => [cluster, counts[i]!]));
}
