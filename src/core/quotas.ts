/**
 * What a project may hold. Operators set the defaults (FERRUM_PROJECT_MAX_*) and an admin
 * token may override any of them for one project (PATCH /1/projects/{id} `quotas`).
 */
export const QUOTA_NAMES = [
  'stored_bytes',
  'queue_bytes',
  'queues',
  'caches',
  'apps',
  'routes',
  'hot_containers',
  'queued_calls',
  'queued_tasks',
] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];
export type Quotas = Record<QuotaName, number>;
