import type { KeySpace, RedisClient } from '../core/redis.js';

/**
 * Usage counters shown on a project (task_count, hourly_task_count, hourly_time,
 * total_duration). The worker's task scripts keep them current in the step that changes a
 * task, so the key shares the worker's per-project hash tag.
 */
export function projectCountersKey(keys: KeySpace, projectId: string): string {
  return keys.of(`{w:${projectId}}`, 'project-counters');
}

/** How many of the project's schedules are active (kept by the schedule scripts, under their hash tag). */
export function projectSchedulesCountKey(keys: KeySpace, projectId: string): string {
  return keys.of('{ws}', 'schedules-count', projectId);
}

export async function readProjectCounters(redis: RedisClient, keys: KeySpace, projectId: string) {
  const [hash, schedules] = await Promise.all([
    redis.hgetall(projectCountersKey(keys, projectId)),
    redis.get(projectSchedulesCountKey(keys, projectId)),
  ]);
  const count = (name: string) => Number(hash[name] ?? 0);
  return {
    total_duration: count('total_duration'),
    schedules_count: Math.max(0, Number(schedules ?? 0)),
    task_count: count('task_count'),
    hourly_task_count: count('hourly_task_count'),
    hourly_time: hash.hourly_time ? Number(hash.hourly_time) : null,
  };
}
