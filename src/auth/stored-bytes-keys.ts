import type { KeySpace } from '../core/redis.js';

/** The services that keep an exact counter of their stored bytes toward a project's stored_bytes quota. */
export const STORING_SERVICES = ['code', 'cache', 'calls', 'tasks'] as const;
export type StoringService = (typeof STORING_SERVICES)[number];

// Each counter shares its service's hash tag (worker/keys.ts, cache/keys.ts, functions/keys.ts),
// so that service's scripts may change it in the same step as the data.
const TAGS: Record<StoringService, (projectId: string) => string> = {
  code: (projectId) => `{w:${projectId}}`,
  cache: (projectId) => `{cache:${projectId}}`,
  calls: (projectId) => `{fn-p:${projectId}}`,
  tasks: (projectId) => `{w:${projectId}}`,
};

// Queued task payloads share the code archives' tag: their counter needs a name of its own.
const NAMES: Record<StoringService, string> = {
  code: 'stored-bytes',
  cache: 'stored-bytes',
  calls: 'stored-bytes',
  tasks: 'queued-task-bytes',
};

/** The counter of `service`'s stored bytes of a project (the task scripts change the tasks' one themselves). */
export function storedBytesKey(keys: KeySpace, service: StoringService, projectId: string): string {
  return keys.of(TAGS[service](projectId), NAMES[service]);
}
