import { toRfc3339 } from '../../src/core/time.js';
import type { Schedule } from '../../src/worker/schedules/schedule-types.js';

/** Wire shape of a schedule: times in RFC 3339. */
export function scheduleView(schedule: Schedule) {
  return {
    id: schedule.id,
    project_id: schedule.project_id,
    code_name: schedule.code_name,
    payload: schedule.payload,
    name: schedule.name,
    label: schedule.label,
    status: schedule.status,
    msg: schedule.msg,
    created_at: toRfc3339(schedule.created_at),
    updated_at: toRfc3339(schedule.updated_at),
    start_at: toRfc3339(schedule.start_at),
    end_at: toRfc3339(schedule.end_at),
    next_start: toRfc3339(schedule.next_start),
    last_run_time: toRfc3339(schedule.last_run_time),
    run_every: schedule.run_every,
    cron: schedule.cron,
    timezone: schedule.timezone,
    run_times: schedule.run_times,
    run_count: schedule.run_count,
    error_count: schedule.error_count,
    priority: schedule.priority,
    timeout: schedule.timeout,
    cluster: schedule.cluster,
    // `delay` as clients send it (and read it back); `task_delay` as the spec's field list names it.
    delay: schedule.task_delay,
    task_delay: schedule.task_delay,
  };
}

const string = { type: 'string' } as const;
const number = { type: 'number' } as const;

export const scheduleSchema = {
  type: 'object',
  required: ['id', 'project_id', 'code_name', 'payload', 'created_at', 'updated_at'],
  properties: {
    id: string,
    project_id: string,
    code_name: string,
    payload: string,
    name: string,
    label: string,
    status: string,
    msg: string,
    created_at: string,
    updated_at: string,
    start_at: string,
    end_at: string,
    next_start: string,
    last_run_time: string,
    run_every: number,
    cron: string,
    timezone: string,
    run_times: number,
    run_count: number,
    error_count: number,
    priority: number,
    timeout: number,
    cluster: string,
    delay: number,
    task_delay: number,
  },
} as const;
