import type { Runner } from '../../runner/runner.js';
import { madeOnFirstUse, useStarted } from './read-through.js';
import type { TestServer } from './server.js';
import { useBeforeAll, useTestServer } from './test-file.js';
import { createCluster, FAST_WORKER_ENV, startRunner, WorkerClient, type RunnerOptions } from './worker.js';

/** A test file's worker server (useTestServer with FAST_WORKER_ENV and `env`) and a worker API client of it. */
export interface WorkerTestFile {
  server: TestServer;
  worker: WorkerClient;
}

/** The file's worker server and its client; read them inside tests and hooks. */
export function workerTestFile(env: Record<string, string> = {}): WorkerTestFile {
  const server = useTestServer({ ...FAST_WORKER_ENV, ...env });
  return { server, worker: workerClientOf(server) };
}

/** A worker API client (project of the bootstrap admin) of a file's server, made on first use. */
export function workerClientOf(server: TestServer): WorkerClient {
  return madeOnFirstUse(() => new WorkerClient(server.http, server.projectId));
}

/**
 * A runner in this process (startRunner) for the tests of the enclosing file or describe block:
 * started before them, stopped after them (before the server, whose hooks came first). `env`
 * may be computed in that beforeAll (the server's URL, a cluster made for it).
 */
export function useRunner(
  server: TestServer,
  env: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>) = {},
  options: RunnerOptions = {},
): Runner {
  const startIt = async () => startRunner(server, typeof env === 'function' ? await env() : env, options);
  return useStarted('the runner', startIt, (runner) => runner.stop());
}

/**
 * useRunner on a cluster made for it (named `name`), so only tasks routed there reach it;
 * `cluster` holds the cluster's id once made.
 */
export function useRunnerOfItsOwn(
  server: TestServer,
  name: string,
  env: () => Record<string, string> = () => ({}),
  options: RunnerOptions = {},
): { cluster: string } {
  const made = { cluster: '' };
  const onItsCluster = async () => {
    made.cluster = await createCluster(server.http, name);
    return { ...env(), FERRUM_RUNNER_CLUSTER: made.cluster };
  };
  useRunner(server, onItsCluster, options);
  return made;
}

/** A runner's settings that put its containers on the host network, reaching the file's server on loopback. */
export function onHostNetwork(server: TestServer): Record<string, string> {
  return { FERRUM_RUNNER_NETWORK: 'host', FERRUM_RUNNER_API_URL: server.url };
}

/** A worker client of the file's server (useTestServer) as its admin, made before the file's tests with `codes` uploaded. */
export function useWorkerClient(server: TestServer, ...codes: Array<Record<string, unknown>>): WorkerClient {
  return useBeforeAll(async () => {
    const client = new WorkerClient(server.http, server.projectId);
    for (const code of codes) await client.upload(code);
    return client;
  });
}
