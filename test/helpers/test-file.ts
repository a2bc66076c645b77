import { startController, type RunningController } from '../../controller/main.js';
import type { RedisClient } from '../../src/core/redis.js';
import { readThrough, useStarted } from './read-through.js';
import { signalAndWait, startFerrumProcess, type FerrumProcess, type FerrumProcessOptions } from './ferrum-process.js';
import { scaled } from './pace.js';
import { startTestRedis } from './redis.js';
import { startTestServer, type TestServer } from './server.js';

export { readThrough };

/**
 * The one set-up of a test file that needs a server: starts it (startTestServer(env), or `start`)
 * before the file's tests and stops it after them. The handle returned reads through to the
 * running server, so tests use it as a TestServer (`server.http`, `startRunner(server)`); read it
 * inside tests and hooks, not at the file's top level.
 */
export function useTestServer(
  env: Record<string, string> = {},
  start: () => Promise<TestServer> = () => startTestServer(env),
): TestServer {
  return useStarted('the test server', start, (server) => server.stop());
}

/**
 * An object the file's tests share, made by a beforeAll registered now (so after the hooks
 * registered before it, e.g. useTestServer's) and released after the tests: useStarted for what
 * needs no name and may be made at once.
 */
export function useBeforeAll<T extends object>(
  make: () => Promise<T> | T,
  release: (made: T) => Promise<unknown> | unknown = () => undefined,
): T {
  return useStarted(
    'a file fixture',
    async () => make(),
    async (made) => release(made),
  );
}

/** A connection to the file's server's Redis (TestServer.openRedis), open while its tests run. */
export function useRedis(server: TestServer): RedisClient {
  return useBeforeAll(
    () => server.openRedis(),
    (redis) => redis.disconnect(),
  );
}

/**
 * Another controller with the settings of the file's server, on its Redis and a free port: a
 * second instance of the same deployment (it finds the admin there, so it bootstraps nothing).
 */
export function startControllerBeside(server: TestServer): Promise<RunningController> {
  return startController({ ...server.config, port: 0 });
}

/** startControllerBeside, started before the file's tests (after its server) and stopped after them. */
export function useControllerBeside(server: TestServer): RunningController {
  return useStarted(
    'the second controller',
    () => startControllerBeside(server),
    (controller) => controller.stop(),
  );
}

/** A private redis-server (startTestRedis) of the file, e.g. for startTestServerOnRedis: started before its tests, stopped after them. */
export function useTestRedis(): Awaited<ReturnType<typeof startTestRedis>> {
  return useStarted('the test Redis', startTestRedis, (redis) => redis.stop());
}

/**
 * A `ferrum <command>` process (startFerrumProcess) for the file's tests, where the test is of the
 * process as a user runs it (`ferrum start` with its runner): stopped by SIGTERM after them.
 */
export function useFerrumProcess(command: string, options: FerrumProcessOptions = {}): FerrumProcess {
  return useStarted(
    `ferrum ${command}`,
    () => startFerrumProcess(command, options),
    (proc) => signalAndWait(proc, 'SIGTERM'),
    scaled(120_000),
  );
}
