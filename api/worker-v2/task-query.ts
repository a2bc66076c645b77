import { TASK_STATUSES } from '../../src/worker/types.js';
import type { TaskFilter } from '../../src/worker/tasks/task-store.js';
import { CLUSTER_NAME, pagingProperties } from './params.js';

const statusFlag = { type: 'string', enum: ['0', '1', 'true', 'false'] } as const;

export const taskListQuery = {
  type: 'object',
  properties: {
    ...pagingProperties,
    code_name: { type: 'string', minLength: 1 },
    cluster: { type: 'string', pattern: CLUSTER_NAME },
    from_time: { type: 'integer', minimum: 0 },
    to_time: { type: 'integer', minimum: 0 },
    ...Object.fromEntries(TASK_STATUSES.map((status) => [status, statusFlag])),
  },
} as const;

/** The schema's fields, and a flag per status (`?queued=1&error=1`) beside them. */
interface TaskListQuery {
  [statusFlag: string]: unknown;
  page: number;
  per_page: number;
  code_name?: string;
  cluster?: string;
  from_time?: number;
  to_time?: number;
}

/** The list query as a store filter: status flags set to 1 combine; times are seconds. */
export function taskFilterOf(query: TaskListQuery): TaskFilter {
  return {
    codeName: query.code_name,
    cluster: query.cluster,
    statuses: TASK_STATUSES.filter((status) => query[status] === '1' || query[status] === 'true'),
    from: query.from_time === undefined ? undefined : query.from_time * 1000,
    to: query.to_time === undefined ? undefined : query.to_time * 1000,
    page: query.page,
    perPage: query.per_page,
  };
}
