/** A schedule record as stored in Redis (times in epoch ms; every field a string in the hash). */

export const SCHEDULE_STATUSES = ['scheduled', 'complete', 'cancelled'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/** When a schedule's runs fall: a fixed interval from start_at, or a cron expression in a time zone. */
export interface Recurrence {
  start_at: number;
  run_every?: number;
  cron?: string;
  timezone?: string;
  run_times?: number;
  end_at?: number;
}

export interface Schedule extends Recurrence {
  id: string;
  project_id: string;
  code_name: string;
  payload: string;
  name?: string;
  label?: string;
  status: ScheduleStatus;
  msg?: string;
  created_at: number;
  updated_at: number;
  priority?: number;
  timeout?: number;
  cluster?: string;
  task_delay?: number;
  run_count: number;
  error_count: number;
  last_run_time?: number;
  /** Absent once no run is left. */
  next_start?: number;
}
