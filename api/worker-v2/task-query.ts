import type { FromSchema } from 'json-schema-to-ts';
import { TASK_STATUSES, type TaskStatus } from '../../src/worker/types.js';
import type { TaskFilter } from '../../src/worker/tasks/records/task-store.js';
import { CLUSTER_NAME, pagingProperties } from './params.js';

const statusFlag = { type: 'string', enum: ['0', '1', 'true', 'false'] } as const;

/** `?queued=1&running=true…`: one flag per task status (fromEntries loses the keys' names). */
const statusFlags = Object.fromEntries(TASK_STATUSES.map((status) => [status, statusFlag])) as Record<
  TaskStatus,
  typeof statusFlag
>;

export const taskListQuery = {
  type: 'object',
  properties: {
    ...pagingProperties,
    code_name: { type: 'string', minLength: 1 },
    cluster: { type: 'string', pattern: CLUSTER_NAME },
    from_time: { type: 'integer', minimum: 0 },
    to_time: { type: 'integer', minimum: 0 },
    ...statusFlags,
  },
} as const;

/** The list query as a store filter: status flags set to 1 combine; times are seconds. */
export function taskFilterOf(query: FromSchema<typeof taskListQuery>): TaskFilter {
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
