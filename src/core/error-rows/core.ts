import { row } from './row.js';

/** The error table's core rows: shared by every domain. */
export const CORE_ERRORS = {
  redis_unavailable: row(
    503,
    'Service temporarily unavailable: the data store cannot be reached or cannot take writes now; retry shortly',
  ),
  // Not a 503: a full Redis is no outage, retrying does not help until space is freed (docs/operations.md, "When Redis is full").
  redis_full: row(
    507,
    'Insufficient storage: the data store is full (Redis is out of memory) and takes no more data; delete data to free space, or ask the operator to give Redis more memory',
  ),
  not_authenticated: row(401, 'Invalid or missing token'),
  /** What a running task's own token may use (docs/tasks-and-functions.md, "How tasks run"); every other route refuses it. */
  task_token_out_of_scope: row(
    403,
    "A task token is valid only for its own project's queues, caches and code packages, for queueing and reading its tasks, and for its own task's progress",
  ),
  // A push queue's `ironworker:///<code>` subscriber queues no task for a suspended project.
  project_suspended_no_tasks: row(403, 'Project is suspended: no tasks are queued'),
  // Storage feature flags (src/core/features): what an operator may enable, and when.
  feature_unknown: row(404, (name: string, known: string) => `Unknown storage feature flag ${name}; known: ${known}`),
  feature_unsupported: row(
    409,
    (name: string, processes: string) =>
      `Storage feature flag ${name} cannot be enabled: live processes do not support it (upgrade or stop them first): ${processes}`,
  ),
  features_admin_only: row(403, 'Only an admin token may see or enable storage feature flags'),
} as const;
