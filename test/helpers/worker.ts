import type Docker from 'dockerode';
import { pino } from 'pino';
import yazl from 'yazl';
import { loadConfig } from '../../src/core/config.js';
import { eventually } from './eventually.js';
import { Runner } from '../../runner/runner.js';
import type { HttpClient } from './http.js';
import { startTestServer, type TestServer } from './server.js';
import { ProjectClient } from './project-client.js';

/** Settings that keep worker tests fast: short heartbeats and lock checks, quick log flushes. */
export const FAST_WORKER_ENV: Record<string, string> = {
  FERRUM_WORKER_STACKS: 'sh=ferrum-test/busybox,node=ferrum-test/node-base',
  FERRUM_WORKER_DEFAULT_STACK: 'node',
  FERRUM_RUNNER_SLOTS: '4',
  FERRUM_RUNNER_NETWORK: 'none',
  FERRUM_RUNNER_HEARTBEAT_MS: '300',
  FERRUM_RUNNER_LOCK_MS: '1500',
  FERRUM_RUNNER_STALLED_CHECK_MS: '1000',
  FERRUM_RUNNER_DRAIN_MS: '5000',
  FERRUM_RUNNER_LOG_FLUSH_MS: '50',
  FERRUM_RUNNER_GATE_RETRY_MS: '100',
  FERRUM_ENCRYPTION_KEY: 'test-secret',
};

/** How a runner reaches the installation: Redis itself, or the runner API with a cluster runner token. */
export type RunnerMode = 'direct' | 'gateway';
export const RUNNER_MODES: RunnerMode[] = ['direct', 'gateway'];

export interface RunnerOptions {
  mode?: RunnerMode;
  docker?: Docker;
  /** Gateway mode: this token rather than a new one. */
  token?: string;
}

/** A new runner token of `cluster` (the default one unless named), made with the admin token. */
export async function createRunnerToken(
  server: TestServer,
  cluster = 'default',
): Promise<{ id: string; token: string }> {
  const response = await server.http.post(`/2/clusters/${cluster}/tokens`);
  if (response.status !== 200) throw new Error(`runner token failed: ${response.status} ${response.text}`);
  return response.body.token;
}

/** What a runner API call carries: a JSON body or raw bytes (octet-stream), and extra headers. */
export interface RunnerCallOptions {
  body?: unknown;
  raw?: Buffer;
  headers?: Record<string, string>;
}

/** Calls the file's server's runner API as a gateway runner does: Bearer `token` (a runner token), no admin token. */
export function runnerApiCall(server: TestServer, token: string) {
  return (method: string, path: string, options: RunnerCallOptions = {}) =>
    server.http.withToken(null).request(method, path, {
      headers: {
        Authorization: `Bearer ${token}`,
        ...(options.raw ? { 'Content-Type': 'application/octet-stream' } : {}),
        ...options.headers,
      },
      ...(options.raw ? { raw: options.raw } : { body: options.body }),
    });
}

/**
 * A runner in this process: against the test server's Redis (direct), or, in gateway mode,
 * with no Redis URL at all, through the server's runner API with a new runner token of its cluster.
 */
export async function startRunner(
  server: TestServer,
  env: Record<string, string> = {},
  options: RunnerOptions = {},
): Promise<Runner> {
  const base = { ...FAST_WORKER_ENV, FERRUM_DATA_DIR: server.config.dataDir, LOG_LEVEL: 'warn', ...env };
  const log = pino({ level: 'warn' });
  if (options.mode === 'gateway') {
    const token = options.token ?? (await createRunnerToken(server, env.FERRUM_RUNNER_CLUSTER)).token;
    // Neither Redis nor the installation's encryption key: a gateway runner has only the API and its token.
    const gatewayEnv = Object.fromEntries(Object.entries(base).filter(([name]) => name !== 'FERRUM_ENCRYPTION_KEY'));
    const config = loadConfig({ ...gatewayEnv, FERRUM_API_URL: server.url, FERRUM_RUNNER_TOKEN: token });
    return Runner.startGateway(config, config.runner.gateway!, log, options.docker);
  }
  const config = loadConfig({ ...base, ...server.redisEnv });
  return Runner.start(config, config.redisUrl!, log, options.docker);
}

export async function startWorkerServer(): Promise<TestServer> {
  return startTestServer(FAST_WORKER_ENV);
}

export interface ZipOptions {
  /** Unix mode of the files (default: executable). */
  mode?: number;
  /** Symbolic links to add: name → target. */
  links?: Record<string, string>;
}

export function zipOf(
  files: Record<string, string>,
  { mode = 0o100755, links = {} }: ZipOptions = {},
): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name, { mode });
  for (const [name, target] of Object.entries(links)) zip.addBuffer(Buffer.from(target), name, { mode: 0o120777 });
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

export function uploadForm(data: unknown, zip?: Buffer): FormData {
  const form = new FormData();
  form.append('data', typeof data === 'string' ? data : JSON.stringify(data));
  if (zip) form.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), 'code.zip');
  return form;
}

/** Creates a cluster (its owner: the token's user) and returns its id, for tasks routed to runners of their own. */
export async function createCluster(
  http: HttpClient,
  name: string,
  body: Record<string, unknown> = {},
): Promise<string> {
  const response = await http.post('/2/clusters', { name, ...body });
  if (response.status !== 200) throw new Error(`cluster create failed: ${response.status} ${response.text}`);
  return response.body.cluster.id;
}

export class WorkerClient extends ProjectClient {
  path(rest: string): string {
    return `/2/projects/${this.projectId}${rest}`;
  }

  async upload(data: Record<string, unknown>, zip?: Buffer): Promise<string> {
    const response = await this.http.post(this.path('/codes'), undefined, { raw: uploadForm(data, zip) });
    if (response.status !== 200) throw new Error(`upload failed: ${response.status} ${response.text}`);
    return response.body.id;
  }

  async queue(codeName: string, payload: string, extra: Record<string, unknown> = {}): Promise<string> {
    const response = await this.http.post(this.path('/tasks'), { tasks: [{ code_name: codeName, payload, ...extra }] });
    if (response.status !== 200) throw new Error(`queue failed: ${response.status} ${response.text}`);
    return response.body.tasks[0].id;
  }

  async task(taskId: string): Promise<any> {
    return (await this.http.get(this.path(`/tasks/${taskId}`))).body;
  }

  async log(taskId: string): Promise<string> {
    return (await this.http.get(this.path(`/tasks/${taskId}/log`))).text;
  }

  /** Polls until the task is in one of `statuses`; fails after `timeoutMs`. */
  async waitFor(taskId: string, statuses: string[], timeoutMs = 20000): Promise<any> {
    let task: any;
    return eventually(
      async () => {
        task = await this.task(taskId);
        return statuses.includes(task.status) && task;
      },
      timeoutMs,
      `task ${taskId} to be ${statuses.join('/')}`,
    ).catch((error: Error) => {
      throw new Error(`${error.message}: it is ${task?.status}: ${JSON.stringify(task)}`);
    });
  }
}
