import { createRequire } from 'node:module';
import { beforeAll } from 'vitest';
import { ironJsonOf } from './cli.js';
import type { TestServer } from './server.js';
import { useTestServer } from './test-file.js';

const require = createRequire(import.meta.url);

/** The platform's own npm clients, dev dependencies used unchanged (iron_mq_v1 is iron_mq 0.2.x). */
export type IronClientPackage = 'iron_mq' | 'iron_mq_v1' | 'iron_worker';

/** The folder an iron client package is installed in (to read the files it ships). */
export function ironClientDir(name: IronClientPackage): string {
  return require.resolve(`${name}/package.json`).replace(/\/package\.json$/, '');
}

/** The options every iron npm client takes to reach a test server: its iron.json (they ignore `protocol`). */
export function ironClientOptions(server: TestServer, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...ironJsonOf(server), ...extra };
}

/** Calls a callback-style client method as a promise; the clients may call back more than once, the first answer counts. */
export function callClient<T = any>(target: any, method: string, ...args: unknown[]): Promise<T> {
  return new Promise((resolve, reject) => {
    let answered = false;
    target[method](...args, (error: Error | null, body: T) => {
      if (answered) return;
      answered = true;
      if (error) reject(error);
      else resolve(body);
    });
  });
}

/** A test file's server and an iron npm client pointed at it. */
export interface IronClientSession {
  server: TestServer;
  client: any;
}

/**
 * The shared set-up of the iron client suites: before the file's tests, a server
 * (startTestServer unless given) and a `new Client(...)` of the package aimed at it; after them,
 * the server stops (useTestServer). Read the fields inside tests.
 */
export function useIronClient(
  name: IronClientPackage,
  options: { clientOptions?: Record<string, unknown>; startServer?: () => Promise<TestServer> } = {},
): IronClientSession {
  const { Client } = require(name) as { Client: new (options: Record<string, unknown>) => any };
  const session = { server: useTestServer({}, options.startServer) } as IronClientSession;
  beforeAll(() => {
    session.client = new Client(ironClientOptions(session.server, options.clientOptions));
  });
  return session;
}
