import { TASK_STATUSES } from '../../src/worker/types.js';

/** The runner API's paths, path parameters, query strings and bodies. */

export const TASK_PATH = '/runner/v1/clusters/:cluster_id/instances/:instance_id/tasks/:task_id';

/** The longest a runner's long-poll for its next task is held open. */
export const MAX_WAIT_MS = 30_000;

const idPattern = '^[A-Za-z0-9_.-]{1,100}$';
export const instanceParams = {
  type: 'object',
  required: ['cluster_id', 'instance_id'],
  properties: {
    cluster_id: { type: 'string', pattern: idPattern },
    instance_id: { type: 'string', pattern: idPattern },
  },
} as const;
export const taskParams = {
  ...instanceParams,
  required: [...instanceParams.required, 'task_id'] as const,
  properties: { ...instanceParams.properties, task_id: { type: 'string', pattern: idPattern } },
} as const;
export const heartbeatBody = {
  type: 'object',
  required: ['slots', 'busy', 'heartbeat_ms', 'tasks'],
  additionalProperties: false,
  properties: {
    hostname: { type: 'string', maxLength: 255 },
    version: { type: 'string', maxLength: 50 },
    slots: { type: 'integer', minimum: 1, maximum: 1000 },
    busy: { type: 'integer', minimum: 0, maximum: 1000 },
    heartbeat_ms: { type: 'integer', minimum: 100, maximum: 600_000 },
    created_at: { type: 'integer', minimum: 0 },
    tasks: { type: 'array', maxItems: 1000, items: { type: 'string', pattern: idPattern } },
  },
} as const;
export const finishBody = {
  type: 'object',
  required: ['from', 'status'],
  additionalProperties: false,
  properties: {
    from: { type: 'array', minItems: 1, items: { enum: ['preparing', 'running'] } },
    status: { enum: TASK_STATUSES.filter((status) => !['queued', 'preparing', 'running'].includes(status)) },
    msg: { type: 'string', maxLength: 10_000 },
  },
} as const;
export const progressBody = {
  type: 'object',
  additionalProperties: false,
  properties: { percent: { type: 'integer', minimum: 0, maximum: 100 }, msg: { type: 'string', maxLength: 10_000 } },
} as const;
export const nextTaskQuery = {
  type: 'object',
  properties: {
    wait_ms: { type: 'integer', minimum: 0, maximum: MAX_WAIT_MS },
    heartbeat_ms: { type: 'integer', minimum: 100, maximum: 600_000 },
  },
} as const;
export const registryAuthQuery = {
  type: 'object',
  required: ['image'],
  properties: { image: { type: 'string', minLength: 1, maxLength: 1000 } },
} as const;
export const startBody = {
  type: 'object',
  additionalProperties: false,
  properties: { hostname: { type: 'string', maxLength: 255 } },
} as const;
export const logQuery = {
  type: 'object',
  required: ['seq'],
  properties: { seq: { type: 'integer', minimum: 1 }, max_bytes: { type: 'integer', minimum: 0 } },
} as const;
