import { toRfc3339 } from '../../src/core/time.js';
import type { App, CallRecord, Route } from '../../src/functions/types.js';

/** How the platform prints a time that is not set yet. */
const ZERO_TIME = '0001-01-01T00:00:00.000Z';

const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;
const time = { type: 'string' } as const;

export const appSchema = {
  type: 'object',
  required: ['name', 'project_id', 'config', 'created_at', 'updated_at'],
  properties: {
    name: { type: 'string' },
    project_id: { type: 'string' },
    config: stringMap,
    created_at: time,
    updated_at: time,
  },
} as const;

export const routeSchema = {
  type: 'object',
  required: [
    'app_name',
    'path',
    'image',
    'memory',
    'type',
    'format',
    'timeout',
    'idle_timeout',
    'max_concurrency',
    'headers',
    'config',
    'has_secret',
    'created_at',
    'updated_at',
  ],
  properties: {
    app_name: { type: 'string' },
    path: { type: 'string' },
    image: { type: 'string' },
    memory: { type: 'integer' },
    type: { type: 'string' },
    format: { type: 'string' },
    timeout: { type: 'integer' },
    idle_timeout: { type: 'integer' },
    max_concurrency: { type: 'integer' },
    headers: stringMap,
    config: stringMap,
    has_secret: { type: 'boolean' },
    created_at: time,
    updated_at: time,
  },
} as const;

export const callSchema = {
  type: 'object',
  required: ['id', 'app_name', 'path', 'project_id', 'status', 'created_at', 'started_at', 'completed_at'],
  properties: {
    id: { type: 'string' },
    app_name: { type: 'string' },
    path: { type: 'string' },
    project_id: { type: 'string' },
    format: { type: 'string' },
    type: { type: 'string' },
    status: { type: 'string' },
    error: { type: 'string' },
    created_at: time,
    started_at: time,
    completed_at: time,
  },
} as const;

/** A response schema: `message` plus one wrapped object or list. */
export function wrapped(name: string, schema: object) {
  return {
    200: {
      type: 'object',
      properties: { message: { type: 'string' }, [name]: schema, next_cursor: { type: 'string' } },
    },
  };
}

export function appView(app: App) {
  return {
    name: app.name,
    project_id: app.projectId,
    config: app.config,
    created_at: toRfc3339(app.createdAt),
    updated_at: toRfc3339(app.updatedAt),
  };
}

export function routeView(route: Route) {
  return {
    app_name: route.appName,
    path: route.path,
    image: route.image,
    memory: route.memory,
    type: route.type,
    format: route.format,
    timeout: route.timeout,
    idle_timeout: route.idleTimeout,
    max_concurrency: route.maxConcurrency,
    headers: route.headers,
    config: route.config,
    has_secret: route.secret !== null,
    created_at: toRfc3339(route.createdAt),
    updated_at: toRfc3339(route.updatedAt),
  };
}

export function callView(call: CallRecord) {
  return {
    id: call.id,
    app_name: call.appName,
    path: call.path,
    project_id: call.projectId,
    format: call.format,
    type: call.type,
    status: call.status,
    error: call.error ?? undefined,
    created_at: toRfc3339(call.createdAt),
    started_at: toRfc3339(call.startedAt) ?? ZERO_TIME,
    completed_at: toRfc3339(call.completedAt) ?? ZERO_TIME,
  };
}
