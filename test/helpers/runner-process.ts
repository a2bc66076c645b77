import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll } from 'vitest';
import { builtFerrum } from './built-checkout.js';
import type { TestServer } from './server.js';
import { createRunnerToken, FAST_WORKER_ENV, type RunnerMode } from './worker.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A `ferrum runner` child process and what it wrote so far. */
export interface RunnerProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
}

export interface RunnerProcessOptions {
  mode?: RunnerMode;
  /** The port of its /metrics (0: any). */
  port?: number;
  /** Settings over the fast test ones (FAST_WORKER_ENV). */
  env?: Record<string, string>;
}

/**
 * `ferrum runner` as its own process, as it runs on a worker machine, for one cluster of the
 * file's server: direct, with the Redis URL, or gateway, with only the API and a new runner
 * token of the cluster (no Redis, no encryption key). Returns the spawner; the processes still
 * running after the file's tests are killed (before the server stops, whose hooks came first).
 */
export function runnerProcessesOf(
  server: TestServer,
): (cluster: string, options?: RunnerProcessOptions) => Promise<RunnerProcess> {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return async (cluster, { mode = 'direct', port = 0, env = {} } = {}) => {
    const reach =
      mode === 'direct'
        ? server.redisEnv
        : { FERRUM_API_URL: server.url, FERRUM_RUNNER_TOKEN: (await createRunnerToken(server, cluster)).token };
    const inherited: NodeJS.ProcessEnv = { ...process.env };
    delete inherited.REDIS_URL;
    const child = spawn(process.execPath, [builtFerrum(), 'runner'], {
      cwd: ROOT,
      env: {
        ...inherited,
        ...FAST_WORKER_ENV,
        ...env,
        ...reach,
        // An empty value is no key.
        ...(mode === 'gateway' ? { FERRUM_ENCRYPTION_KEY: '' } : {}),
        FERRUM_DATA_DIR: server.config.dataDir,
        FERRUM_RUNNER_CLUSTER: cluster,
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, exited, output: () => output };
  };
}
