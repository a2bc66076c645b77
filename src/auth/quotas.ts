import { fail, type HttpError } from '../core/errors.js';
import type { QuotaName, Quotas } from '../core/quotas.js';

// The quotas' names and record are the core's (its configuration reads their defaults).
export { QUOTA_NAMES, type QuotaName, type Quotas } from '../core/quotas.js';

/** The setting that gives each quota its default, named in every refusal. */
export const QUOTA_SETTINGS: Record<QuotaName, string> = {
  stored_bytes: 'FERRUM_PROJECT_MAX_STORED_BYTES',
  queue_bytes: 'FERRUM_PROJECT_MAX_QUEUE_BYTES',
  queues: 'FERRUM_PROJECT_MAX_QUEUES',
  caches: 'FERRUM_PROJECT_MAX_CACHES',
  apps: 'FERRUM_PROJECT_MAX_APPS',
  routes: 'FERRUM_PROJECT_MAX_ROUTES',
  hot_containers: 'FERRUM_PROJECT_MAX_HOT_CONTAINERS',
  queued_calls: 'FERRUM_PROJECT_MAX_QUEUED_CALLS',
  queued_tasks: 'FERRUM_PROJECT_MAX_QUEUED_TASKS',
};

/** The project's quotas: its own overrides over the operator's defaults. */
export function quotasOf(project: { quotas: Partial<Quotas> }, defaults: Quotas): Quotas {
  return { ...defaults, ...project.quotas };
}

/** Reads a project's quotas in force from its record (404 when it is gone). */
export function projectQuotasFrom(
  projects: { mustGetProject(id: string): Promise<{ quotas: Partial<Quotas> }> },
  defaults: Quotas,
): (projectId: string) => Promise<Quotas> {
  return async (projectId) => quotasOf(await projects.mustGetProject(projectId), defaults);
}

/** 403 for a count quota that a new queue, cache, app or route would pass. */
export function countQuotaReached(name: QuotaName, limit: number, what: string): HttpError {
  return fail('count_quota_reached', name, limit, what, QUOTA_SETTINGS[name]);
}

/** What the stored_bytes quota counts, as its refusals name it. */
export const STORED_BYTES_COUNTED =
  'the project (code archives, cache items, message bodies, queued task payloads, call records and logs)';

/** 413 for a byte quota that a write would pass; nothing of the write is kept. */
export function byteQuotaReached(name: QuotaName, limit: number, what: string): HttpError {
  return fail('byte_quota_reached', name, limit, what, QUOTA_SETTINGS[name]);
}
