import { row } from './row.js';

/** The error table's runner rows: the runner API remote runners call. */
export const RUNNER_ERRORS = {
  runner_token_missing: row(401, 'The runner API needs "Authorization: Bearer <runner token>"'),
  runner_token_invalid: row(401, 'Invalid or revoked runner token'),
  runner_token_other_cluster: row(
    403,
    (granted: string, asked: string) => `This runner token is for cluster ${granted}, not ${asked}`,
  ),
  runner_token_other_instance: row(
    403,
    (granted: string, asked: string) => `This runner token is for instance ${granted}, not ${asked}`,
  ),
  instance_not_registered: row(
    409,
    (instanceId: string) => `Instance ${instanceId} is not registered: heartbeat first`,
  ),
  task_not_held: row(403, (taskId: string) => `This runner does not hold task ${taskId}`),
  held_task_not_found: row(404, (taskId: string) => `Task ${taskId} not found`),
  task_revision_gone: row(
    404,
    (codeName: string, rev: number) => `Code package ${codeName} revision ${rev} no longer exists`,
  ),
  task_image_other: row(
    403,
    (taskId: string, image: string, asked: string) => `Task ${taskId} runs image ${image}, not ${asked}`,
  ),
  task_cannot_start: row(409, (taskId: string, status: string) => `Task ${taskId} cannot start: it is ${status}`),
  task_not_preparing: row(
    409,
    (taskId: string, status: string) => `Task ${taskId} is not preparing on this runner: it is ${status}`,
  ),
  log_chunk_not_octet_stream: row(409, 'A log chunk is sent as application/octet-stream'),
} as const;
