import { useStarted } from './read-through.js';
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
  return useStarted('the test server', start, (server) => server.stop());
}
