import { afterAll, beforeAll } from 'vitest';
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
  let running: TestServer | undefined;
  beforeAll(async () => {
    running = await start();
  });
  afterAll(async () => {
    await running?.stop();
  });
  const current = (): TestServer => {
    if (!running) throw new Error('the test server is read before the beforeAll that starts it');
    return running;
  };
  return new Proxy({} as TestServer, {
    get: (_, name) => Reflect.get(current(), name),
    has: (_, name) => Reflect.has(current(), name),
    ownKeys: () => Reflect.ownKeys(current()),
    getOwnPropertyDescriptor: (_, name) => {
      const found = Reflect.getOwnPropertyDescriptor(current(), name);
      return found && { ...found, configurable: true };
    },
  });
}
