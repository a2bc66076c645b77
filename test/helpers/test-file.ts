import { afterAll, beforeAll } from 'vitest';
import type { RedisClient } from '../../src/core/redis.js';
import { startTestServer, type TestServer } from './server.js';

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
  return useBeforeAll(start, (running) => running.stop());
}

/**
 * An object the file's tests share, made by a beforeAll registered now (so after the hooks
 * registered before it, e.g. useTestServer's) and released after the tests. The handle returned
 * reads through to it; read it inside tests and hooks, not at the file's top level.
 */
export function useBeforeAll<T extends object>(
  make: () => Promise<T> | T,
  release: (made: T) => Promise<unknown> | unknown = () => undefined,
): T {
  let made: T | undefined;
  beforeAll(async () => {
    made = await make();
  });
  afterAll(async () => {
    if (made) await release(made);
  });
  return readThrough(() => {
    if (!made) throw new Error('a file fixture is read before the beforeAll that makes it');
    return made;
  });
}

/**
 * A stand-in that reads (and writes) every property of what `current()` returns at the time;
 * its methods are bound to it, so a class instance (a Redis connection) works through it too.
 */
export function readThrough<T extends object>(current: () => T): T {
  return new Proxy({} as T, {
    get: (_, name) => {
      const target = current();
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set: (_, name, value) => Reflect.set(current(), name, value),
    has: (_, name) => Reflect.has(current(), name),
    ownKeys: () => Reflect.ownKeys(current()),
    getOwnPropertyDescriptor: (_, name) => {
      const found = Reflect.getOwnPropertyDescriptor(current(), name);
      return found && { ...found, configurable: true };
    },
  });
}

/** A connection to the file's server's Redis (TestServer.openRedis), open while its tests run. */
export function useRedis(server: TestServer): RedisClient {
  return useBeforeAll(
    () => server.openRedis(),
    (redis) => redis.disconnect(),
  );
}
