import { ROUTE_FORMATS, ROUTE_TYPES } from '../../src/functions/types.js';

const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;

export const appFields = {
  type: 'object',
  properties: { name: { type: 'string' }, project_id: { type: 'string' }, config: stringMap },
} as const;

export const routeFields = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    image: { type: 'string' },
    memory: { type: 'integer' },
    type: { type: 'string', enum: [...ROUTE_TYPES] },
    format: { type: 'string', enum: [...ROUTE_FORMATS] },
    timeout: { type: 'integer' },
    idle_timeout: { type: 'integer' },
    max_concurrency: { type: 'integer' },
    headers: stringMap,
    config: stringMap,
    secret: { type: 'string' },
  },
} as const;

export const appParams = {
  type: 'object',
  required: ['app'],
  properties: { app: { type: 'string' } },
} as const;

export const routeParams = {
  type: 'object',
  required: ['app', '*'],
  properties: { app: { type: 'string' }, '*': { type: 'string' } },
} as const;

export const callParams = {
  type: 'object',
  required: ['app', 'call_id'],
  properties: { app: { type: 'string' }, call_id: { type: 'string' } },
} as const;

export const pageQuery = {
  type: 'object',
  properties: {
    cursor: { type: 'string' },
    per_page: { type: 'integer', minimum: 1, maximum: 100, default: 30 },
    // Bounded so page × per_page stays an integer Redis takes as an offset (1e308 answered 500).
    page: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
    project_id: { type: 'string' },
    oauth: { type: 'string' },
  },
} as const;

/** Bodies wrap the object they are about: `{"app": {...}}`, `{"route": {...}}`. */
export const newAppBody = {
  type: 'object',
  required: ['app'],
  properties: { app: { ...appFields, required: ['name'] } },
} as const;
export const appBody = { type: 'object', required: ['app'], properties: { app: appFields } } as const;
export const newRouteBody = {
  type: 'object',
  required: ['route'],
  properties: { route: { ...routeFields, required: ['path', 'image'] } },
} as const;
export const routeBody = { type: 'object', required: ['route'], properties: { route: routeFields } } as const;
