import type { Redis } from 'ioredis';
import type { KeySpace } from '../core/redis.js';

/**
 * Usage counters shown on a project (task_count, total_duration, …). Services that run work
 * for a project add to them with HINCRBY on this key.
 */
export function projectCountersKey(keys: KeySpace, projectId: string): string {
  return keys.of('project-counters', projectId);
}

export async function readProjectCounters(redis: Redis, keys: KeySpace, projectId: string) {
  const hash = await redis.hgetall(projectCountersKey(keys, projectId));
  const count = (name: string) => Number(hash[name] ?? 0);
  return {
    total_duration: count('total_duration'),
    schedules_count: count('schedules_count'),
    task_count: count('task_count'),
    hourly_task_count: count('hourly_task_count'),
    hourly_time: hash.hourly_time ? Number(hash.hourly_time) : null,
  };
}
