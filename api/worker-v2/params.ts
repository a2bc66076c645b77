import { LIMITS } from '../../src/worker/types.js';

/** Path parameters and query strings shared by the worker routes. */

export const projectParams = {
  type: 'object',
  required: ['project_id'],
  properties: { project_id: { type: 'string' } },
} as const;

export const codeParams = {
  type: 'object',
  required: ['project_id', 'code_id'],
  properties: { project_id: { type: 'string' }, code_id: { type: 'string' } },
} as const;

export const taskParams = {
  type: 'object',
  required: ['project_id', 'task_id'],
  properties: { project_id: { type: 'string' }, task_id: { type: 'string' } },
} as const;

export const pagingProperties = {
  page: { type: 'integer', minimum: 0, maximum: LIMITS.maxPage, default: 0 },
  per_page: { type: 'integer', minimum: 1, maximum: LIMITS.maxPerPage, default: LIMITS.defaultPerPage },
} as const;

export const pagingQuery = { type: 'object', properties: pagingProperties } as const;

export interface PagingQuery {
  page: number;
  per_page: number;
}

export const CLUSTER_NAME = '^[A-Za-z0-9_.-]{1,64}$';
