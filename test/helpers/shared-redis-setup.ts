import os from 'node:os';
import type { TestProject } from 'vitest/node';
import { startTestRedis } from './redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One redis-server URL per vitest worker slot (VITEST_POOL_ID 1 takes the first). */
    sharedRedisUrls: string[];
  }
}

/**
 * The redis lane's globalSetup: one private redis-server per vitest worker, for the domain
 * tests (test/helpers/shared-redis.ts), which run one file at a time on each worker and so
 * can flush it between files. Starting one costs a few milliseconds.
 */
export default async function startSharedRedis(project: TestProject): Promise<() => Promise<void>> {
  const count = project.globalConfig.maxWorkers || defaultWorkers();
  const servers = await Promise.all(Array.from({ length: count }, () => startTestRedis()));
  project.provide(
    'sharedRedisUrls',
    servers.map((server) => server.url),
  );
  return async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
}

/** Vitest's own default for a run without --maxWorkers: one worker fewer than the cores, at least one. */
function defaultWorkers(): number {
  return Math.max(os.availableParallelism() - 1, 1);
}
