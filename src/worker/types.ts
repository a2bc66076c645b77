/** Records of the worker service as stored in Redis (times in epoch ms). */

export const TASK_STATUSES = ['queued', 'preparing', 'running', 'complete', 'error', 'cancelled', 'timeout'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const FINAL_STATUSES: readonly TaskStatus[] = ['complete', 'error', 'cancelled', 'timeout'];

export const LIMITS = {
  payloadBytes: 64 * 1024,
  configBytes: 64 * 1024,
  maxTimeout: 3600,
  maxDelay: 604800,
  maxRetries: 10,
  maxPage: 100,
  maxPerPage: 100,
  defaultPerPage: 30,
  maxTasksPerRequest: 1000,
  /** Body limit of requests carrying a payload: one payload of the full 64 KB, and room around it. */
  payloadRequestBytes: 80 * 1024,
} as const;

/** The settings one upload gives; a revision keeps them as they were. */
export interface CodeSettings {
  image?: string;
  stack?: string;
  runtime?: string;
  command?: string;
  file_name?: string;
  max_concurrency?: number;
  retries?: number;
  retries_delay?: number;
  priority?: number;
  config?: string;
  env_vars?: Record<string, string>;
}

export interface CodeRevision extends CodeSettings {
  id: string;
  project_id: string;
  code_id: string;
  name: string;
  rev: number;
  created_at: number;
  updated_at: number;
  checksum?: string;
  code_size?: number;
  /** Blob key of the zip; zip packages only. */
  blob?: string;
  /** The zip was deleted: only the newest FERRUM_WORKER_REVISIONS_KEPT revisions keep theirs. */
  archive_pruned?: boolean;
}

export interface Code extends CodeSettings {
  id: string;
  project_id: string;
  name: string;
  created_at: number;
  rev: number;
  latest_history_id: string;
  latest_change: number;
  latest_checksum?: string;
  status?: string;
  archived_at?: number;
}

/** A task record; every field is a string in the Redis hash. */
export interface Task {
  id: string;
  project_id: string;
  code_id: string;
  code_name: string;
  code_rev: number;
  code_history_id: string;
  status: TaskStatus;
  created_at: number;
  updated_at: number;
  payload: string;
  priority: number;
  timeout: number;
  delay: number;
  cluster: string;
  label?: string;
  msg?: string;
  start_time?: number;
  end_time?: number;
  duration?: number;
  log_size: number;
  /** The runner instance that took the task, and the host it ran on. */
  runner?: string;
  runner_host?: string;
  schedule_id?: string;
  retry_count?: number;
  retry_of?: string;
  /** Progress the task reported (0..100). */
  percent?: number;
  /** The task that retries this one. */
  retry_task_id?: string;
  /** When its runner began pulling its image (ms), while preparing; see mark-task-pulling.lua. */
  pulling_at?: number;
}
