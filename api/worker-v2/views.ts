import { toRfc3339 } from '../../src/core/time.js';
import type { Code, CodeRevision, CodeSettings, Task } from '../../src/worker/types.js';

/** Wire shapes of the worker service: times in RFC 3339, task numbers as the spec types them. */

function settingsView(settings: CodeSettings) {
  return {
    image: settings.image,
    stack: settings.stack,
    runtime: settings.runtime,
    command: settings.command,
    max_concurrency: settings.max_concurrency,
    retries: settings.retries,
    retries_delay: settings.retries_delay,
    priority: settings.priority,
    config: settings.config,
    env_vars: settings.env_vars,
  };
}

/** A package whose task queue is paused shows max_concurrency -1, as the original service did. */
export function codeView(code: Code, paused = false) {
  return {
    id: code.id,
    project_id: code.project_id,
    name: code.name,
    created_at: toRfc3339(code.created_at),
    rev: code.rev,
    latest_history_id: code.latest_history_id,
    latest_change: toRfc3339(code.latest_change),
    latest_checksum: code.latest_checksum,
    status: code.status,
    archived_at: toRfc3339(code.archived_at),
    ...settingsView(code),
    ...(paused ? { max_concurrency: -1 } : {}),
  };
}

export function revisionView(revision: CodeRevision) {
  return {
    id: revision.id,
    project_id: revision.project_id,
    code_id: revision.code_id,
    name: revision.name,
    created_at: toRfc3339(revision.created_at),
    updated_at: toRfc3339(revision.updated_at),
    rev: revision.rev,
    checksum: revision.checksum,
    code_size: revision.code_size,
    file_name: revision.file_name,
    ...settingsView(revision),
  };
}

/**
 * The status a client is shown. A runner holds a task it took as `preparing` until its
 * container starts, a few milliseconds when the image is on the engine; the official clients
 * (Go's WaitForTask, PHP's waitFor) wait only while a task is queued or running and read its
 * log at any other status, so such a task reads as `queued` until it runs, and as the spec's
 * `preparing` (the image download) only while its runner pulls the image: marked after the
 * take (mark-task-pulling.lua), so a mark older than the last change is an earlier take's.
 */
function shownStatus(task: Task): Task['status'] {
  if (task.status !== 'preparing') return task.status;
  return task.pulling_at !== undefined && task.pulling_at >= task.updated_at ? 'preparing' : 'queued';
}

export function taskView(task: Task) {
  return {
    id: task.id,
    project_id: task.project_id,
    code_id: task.code_id,
    code_name: task.code_name,
    code_rev: String(task.code_rev),
    code_history_id: task.code_history_id,
    status: shownStatus(task),
    msg: task.msg,
    created_at: toRfc3339(task.created_at),
    updated_at: toRfc3339(task.updated_at),
    start_time: toRfc3339(task.start_time),
    end_time: toRfc3339(task.end_time),
    duration: task.duration,
    priority: task.priority,
    timeout: task.timeout,
    delay: task.delay,
    payload: task.payload,
    cluster: task.cluster,
    label: task.label,
    log_size: task.log_size,
    schedule_id: task.schedule_id,
    retry_count: task.retry_count === undefined ? undefined : String(task.retry_count),
    original_task_id: task.retry_of,
    retry_task_id: task.retry_task_id,
    percent: task.percent,
    runner_id: task.runner,
    runner_host: task.runner_host,
  };
}

const string = { type: 'string' } as const;
const number = { type: 'number' } as const;
const envVars = { type: 'object', additionalProperties: { type: 'string' } } as const;

const settingsSchema = {
  image: string,
  stack: string,
  runtime: string,
  command: string,
  max_concurrency: number,
  retries: number,
  retries_delay: number,
  priority: number,
  config: string,
  env_vars: envVars,
} as const;

export const codeSchema = {
  type: 'object',
  required: ['id', 'project_id', 'name', 'created_at', 'rev', 'latest_history_id', 'latest_change'],
  properties: {
    id: string,
    project_id: string,
    name: string,
    created_at: string,
    rev: number,
    latest_history_id: string,
    latest_change: string,
    latest_checksum: string,
    status: string,
    archived_at: string,
    ...settingsSchema,
  },
} as const;

export const revisionSchema = {
  type: 'object',
  required: ['id', 'project_id', 'code_id', 'name', 'created_at', 'rev'],
  properties: {
    id: string,
    project_id: string,
    code_id: string,
    name: string,
    created_at: string,
    updated_at: string,
    rev: number,
    checksum: string,
    code_size: number,
    file_name: string,
    ...settingsSchema,
  },
} as const;

export const taskSchema = {
  type: 'object',
  required: [
    'id',
    'project_id',
    'code_id',
    'code_name',
    'code_rev',
    'code_history_id',
    'status',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: string,
    project_id: string,
    code_id: string,
    code_name: string,
    code_rev: string,
    code_history_id: string,
    status: string,
    msg: string,
    created_at: string,
    updated_at: string,
    start_time: string,
    end_time: string,
    duration: number,
    priority: number,
    timeout: number,
    delay: number,
    payload: string,
    cluster: string,
    label: string,
    log_size: number,
    schedule_id: string,
    retry_count: string,
    original_task_id: string,
    retry_task_id: string,
    percent: number,
    runner_id: string,
    runner_host: string,
  },
} as const;

export const msgSchema = { type: 'object', required: ['msg'], properties: { msg: string } } as const;

export const queuedSchema = {
  type: 'object',
  required: ['msg', 'tasks'],
  properties: {
    msg: string,
    tasks: { type: 'array', items: { type: 'object', required: ['id'], properties: { id: string } } },
  },
} as const;
