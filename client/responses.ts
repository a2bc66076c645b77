// The answers (and request bodies) of the HTTP API as the shared client (client/endpoints.js)
// returns them, typed from the JSON schemas api/ declares for its routes, so the dashboard and
// the CLI read one definition. Where a route writes its answer by hand (cache items, the queue
// list's wrapper, ...), the shape is written here once.
import type { FromSchema } from 'json-schema-to-ts';
import type { cacheInfoSchema, cacheListSchema } from '../api/cache/views.js';
import type { appSchema, callSchema, routeSchema } from '../api/functions/views.js';
import type { projectSchema, tokenSchema, userSchema } from '../api/identity/views.js';
import type { messageSchema, queueResponseSchema } from '../api/mq-v3/views.js';
import type {
  clusterResponse,
  clusterRunnersResponse,
  clusterStatsResponse,
  createClusterBody,
  runnerTokenListResponse,
  runnerTokenResponse,
} from '../api/worker-v2/cluster-schemas.js';
import type { scheduleSchema } from '../api/worker-v2/schedule-views.js';
import type { codeSchema, queuedSchema, revisionSchema, taskSchema } from '../api/worker-v2/views.js';

/** The confirmation most changes answer with. */
export type Msg = { msg?: string };

export type User = FromSchema<typeof userSchema>;
export type Token = FromSchema<typeof tokenSchema>;
export type Project = FromSchema<typeof projectSchema>;

export type CacheList = FromSchema<typeof cacheListSchema>;
export type CacheInfo = FromSchema<typeof cacheInfoSchema>;
/** GET and PUT of an item write their JSON by hand (api/cache/items.ts). */
export type CacheItem = {
  cache?: string;
  key?: string;
  value: unknown;
  cas?: number | string;
  expires?: string;
};

/** `T` without the `[x: string]: unknown` a schema open to more properties gives it. */
type Known<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

type QueueFields = Known<NonNullable<FromSchema<typeof queueResponseSchema>['queue']>>;
/** The schema leaves `push` and `alerts` free (they are stored as given); their fields, as read, are these. */
export type Queue = Omit<QueueFields, 'push' | 'alerts'> & {
  push?: {
    subscribers?: { name: string; url: string; headers?: Record<string, string> }[];
    retries?: number;
    retries_delay?: number;
    error_queue?: string;
  };
  alerts?: { type: string; trigger: number; direction?: string; queue: string; snooze?: number }[];
};
export type QueueAnswer = { queue: Queue };
export type Message = FromSchema<typeof messageSchema>;
/** A reserved message carries its reservation. */
export type ReservedMessage = Message & { id: string; reservation_id: string; body: string };

export type Code = FromSchema<typeof codeSchema>;
export type Revision = FromSchema<typeof revisionSchema>;
export type Task = FromSchema<typeof taskSchema>;
export type Queued = FromSchema<typeof queuedSchema>;
export type Schedule = FromSchema<typeof scheduleSchema>;
/** Tasks of a code package by state (the stats schema's properties are built from TASK_STATUSES). */
export type CodeStats = Record<string, number>;

export type ClusterAnswer = FromSchema<typeof clusterResponse>;
export type Cluster = NonNullable<ClusterAnswer['cluster']>;
export type ClusterStats = FromSchema<typeof clusterStatsResponse>;
export type ClusterRunners = FromSchema<typeof clusterRunnersResponse>;
export type RunnerTokenAnswer = FromSchema<typeof runnerTokenResponse>;
export type RunnerTokenList = FromSchema<typeof runnerTokenListResponse>;
export type ClusterBody = FromSchema<typeof createClusterBody>;

export type App = FromSchema<typeof appSchema>;
export type Route = FromSchema<typeof routeSchema>;
export type Call = FromSchema<typeof callSchema>;
/** The functions API wraps each answer: `message` plus one object or list (api/functions/views.ts). */
export type Wrapped<Name extends string, T> = { message?: string; next_cursor?: string } & { [K in Name]: T };

/** Ferrum extension: the last hour of a project's task outcomes and queue depth (api/history.ts). */
export type History = {
  sample_interval_seconds: number;
  task_outcomes: ({ time: string } & Record<string, number>)[];
  queue_depth: { time: string; total: number; queues: Record<string, number> }[];
};
