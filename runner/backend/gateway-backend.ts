import { createHash } from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import { Agent, request } from 'undici';
import type { Config } from '../../src/core/config.js';
import { FEATURES_HEADER, KNOWN_FEATURES } from '../../src/core/features/feature-registry.js';
import { FailureLog } from '../../src/core/failure-log.js';
import { retryWhile, sleep } from '../../src/core/time.js';
import type { RunnerInstance } from '../../src/worker/clusters/runners/runner-registry.js';
import type { RegistryAuth } from '../../src/worker/codes/images/registry-credentials.js';
import type { TaskOutcome } from '../../src/worker/tasks/running/runner-tasks.js';
import type { CodeRevision, Task, TaskStatus } from '../../src/worker/types.js';
import type { HeartbeatAnswer, ImageAccess, RunnerBackend, TaskBackend, TaskHandlers } from './backend.js';

/** Where a gateway runner reaches the installation: the API's base URL and a cluster runner token. */
export interface GatewayAccess {
  url: string;
  token: string;
}

/** How long one long-poll for the next task waits at the controller. */
const POLL_WAIT_MS = 20_000;
/** Calls that failed for the network or a 5xx are tried again this many times, backing off. */
const ATTEMPTS = 6;
/** How long a run's end (or a log chunk) is tried again while the runner API fails. */
const FINISH_RETRY_MS = 30_000;

/** An answer of the runner API that is not a success. */
export class GatewayError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayError';
  }

  /** The token was revoked or is not for this cluster/instance: nothing will work again. */
  get refused(): boolean {
    return this.statusCode === 401 || this.statusCode === 403;
  }

  /** The long-poll's answer to an instance the installation does not know (its registration lapsed). */
  get unregistered(): boolean {
    return this.statusCode === 409;
  }
}

/** An answer's status and body: parsed JSON, or the bytes of any other content. */
interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each caller knows the shape of its route's answer
  body: any;
}

interface CallOptions {
  query?: Record<string, string | number>;
  json?: unknown;
  raw?: Buffer;
  signal?: AbortSignal;
  /** Answers with these statuses are returned rather than thrown. */
  accept?: number[];
  headers?: Record<string, string>;
}

/** Who the token says the runner is: its cluster, and its instance for a launched instance's own token. */
export interface GatewayGrant {
  cluster_id: string;
  instance_id: string | null;
}

/** Asks the runner API who a token belongs to (before the runner knows its cluster). */
export async function gatewayGrantOf(access: GatewayAccess): Promise<GatewayGrant> {
  const client = new GatewayClient(access);
  try {
    return (await client.call('GET', '/runner/v1/token')).body as GatewayGrant;
  } finally {
    await client.close();
  }
}

/** A failure worth another try: no answer, or a 5xx (the installation's Redis unavailable, a restart). */
function isPassing(error: unknown): boolean {
  return !(error instanceof GatewayError) || error.statusCode >= 500;
}

class GatewayClient {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  private readonly base: string;

  constructor(private readonly access: GatewayAccess) {
    this.base = access.url.replace(/\/+$/, '');
  }

  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(method, path, options);
      } catch (error) {
        if (!isPassing(error) || attempt >= ATTEMPTS || options.signal?.aborted) throw error;
        await sleep(100 * 2 ** attempt);
      }
    }
  }

  private async once(method: string, path: string, options: CallOptions): Promise<Answer> {
    const url = new URL(this.base + path);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { ...options.headers, authorization: `Bearer ${this.access.token}` };
    let body: string | Buffer | undefined;
    if (options.raw) {
      headers['content-type'] = 'application/octet-stream';
      body = options.raw;
    } else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await request(url, {
      method: method as 'GET',
      headers,
      body,
      signal: options.signal,
      dispatcher: this.agent,
      headersTimeout: POLL_WAIT_MS + 30_000,
    });
    const bytes = Buffer.from(await response.body.arrayBuffer());
    const type = String(response.headers['content-type'] ?? '');
    const parsed = type.includes('application/json') && bytes.length > 0 ? JSON.parse(bytes.toString()) : bytes;
    const status = response.statusCode;
    if (status < 300 || options.accept?.includes(status)) return { status, body: parsed };
    const msg = (parsed as { msg?: string })?.msg ?? `HTTP ${status}`;
    throw new GatewayError(status, `runner API ${method} ${path}: ${status} ${msg}`);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/**
 * A runner outside the installation: reaches it only through the runner API with a cluster
 * runner token; never Redis. The controller takes jobs for it and runs every task change.
 */
export class GatewayBackend implements RunnerBackend, TaskBackend {
  readonly mode = 'gateway';
  readonly tasks: TaskBackend = this;
  readonly storeId: string;
  private readonly client: GatewayClient;
  private readonly base: string;
  private taking = false;
  private readonly polls = new AbortController();
  private loops: Promise<void>[] = [];
  /** The number of the last log chunk sent per task (chunks count from 1). */
  private readonly logSeq = new Map<string, number>();
  /** The slots' asking for tasks: one line when it starts failing, one when it works again. */
  private readonly pollHealth: FailureLog;
  /** Ends the back-off of each slot whose polls failed: see backOff. */
  private readonly backOffs = new Set<() => void>();

  constructor(
    private readonly config: Config,
    access: GatewayAccess,
    private readonly runnerId: string,
    private readonly log: Logger,
  ) {
    this.client = new GatewayClient(access);
    this.pollHealth = new FailureLog(log, 'asking the runner API for tasks', 1000);
    this.storeId = createHash('sha256').update(`gateway|${access.url}`).digest('hex').slice(0, 16);
    this.base = `/runner/v1/clusters/${encodeURIComponent(config.runner.cluster)}/instances/${encodeURIComponent(runnerId)}`;
  }

  async startTaking(handlers: TaskHandlers): Promise<void> {
    this.taking = true;
    this.loops = Array.from({ length: this.config.runner.slots }, () => this.pollLoop(handlers));
  }

  /**
   * One slot: long-polls for a task, runs it, and again, until the runner stops taking. A poll
   * refused because the runner's registration lapsed (its heartbeats did not get through for a
   * while) registers it again at once and polls again, backing off only if that did not help.
   */
  private async pollLoop(handlers: TaskHandlers): Promise<void> {
    let reregistered = false;
    while (this.taking) {
      let task: Task | null;
      try {
        task = await this.next();
      } catch (error) {
        if (!this.taking) return;
        if (error instanceof GatewayError && error.refused) {
          this.log.error({ err: error }, 'the runner API refused this runner: it stops');
          this.taking = false;
          handlers.refused?.(error);
          return;
        }
        if (error instanceof GatewayError && error.unregistered && handlers.reregister && !reregistered) {
          reregistered = true;
          this.log.warn('the runner API no longer knew this runner: registering again');
          await handlers.reregister();
          continue;
        }
        await this.backOff(this.pollHealth.failed(error));
        continue;
      }
      reregistered = false;
      this.pollHealth.succeeded();
      if (!task) continue;
      try {
        await handlers.run(task);
      } catch (error) {
        this.log.error({ err: error, task: task.id }, 'task run failed');
      }
    }
  }

  private async next(): Promise<Task | null> {
    const { status, body } = await this.client.call('POST', `${this.base}/tasks/next`, {
      query: { wait_ms: POLL_WAIT_MS, heartbeat_ms: this.config.runner.heartbeatMs },
      signal: this.polls.signal,
    });
    return status === 200 ? (body.task as Task) : null;
  }

  async stopTaking(): Promise<void> {
    this.taking = false;
    this.polls.abort();
    this.endBackOffs();
    await Promise.all(this.loops);
  }

  /**
   * Waits `ms` after failed polls, or less: a heartbeat that gets through again (the API is back
   * after an outage) or the runner's stop ends every slot's wait at once, rather than leaving
   * the runner idle for the rest of a back-off grown to half a minute.
   */
  private backOff(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer);
        this.backOffs.delete(end);
        resolve();
      };
      const timer = setTimeout(end, ms);
      this.backOffs.add(end);
    });
  }

  private endBackOffs(): void {
    for (const end of [...this.backOffs]) end();
  }

  async heartbeat(instance: RunnerInstance, running: Task[]): Promise<HeartbeatAnswer> {
    const { body } = await this.client.call('POST', `${this.base}/heartbeat`, {
      json: {
        hostname: instance.hostname,
        version: instance.version,
        slots: instance.slots,
        busy: instance.busy,
        created_at: instance.created_at,
        heartbeat_ms: this.config.runner.heartbeatMs,
        tasks: running.map((task) => task.id),
      },
      headers: { [FEATURES_HEADER]: KNOWN_FEATURES.join(',') },
    });
    this.endBackOffs();
    return body as HeartbeatAnswer;
  }

  async isAlive(cluster: string, runnerId: string): Promise<boolean> {
    // Runners of other clusters are not this token's to judge: their containers are left alone.
    if (cluster !== this.config.runner.cluster) return true;
    const path = `/runner/v1/clusters/${encodeURIComponent(cluster)}/instances/${encodeURIComponent(runnerId)}/alive`;
    return (await this.client.call('GET', path)).body.alive === true;
  }

  async deregister(): Promise<void> {
    await this.client.call('DELETE', this.base);
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private taskPath(task: Task, rest: string): string {
    return `${this.base}/tasks/${encodeURIComponent(task.id)}/${rest}`;
  }

  async revision(task: Task): Promise<CodeRevision | null> {
    const { status, body } = await this.client.call('GET', this.taskPath(task, 'revision'), { accept: [404] });
    return status === 404 ? null : (body.revision as CodeRevision);
  }

  async codeZip(task: Task): Promise<Buffer | null> {
    const { status, body } = await this.client.call('GET', this.taskPath(task, 'code'));
    return status === 204 ? null : (body as Buffer);
  }

  /**
   * With credentials the image is pulled with them (the registry checks this project's access). A
   * gateway runner's engine is its owner's own, so no other tenant's pulls are on it to guard.
   */
  async imageAccess(task: Task, image: string): Promise<ImageAccess> {
    const { body } = await this.client.call('GET', this.taskPath(task, 'registry-auth'), { query: { image } });
    const auth = (body.auth as RegistryAuth | null) ?? undefined;
    return { action: auth ? 'pull' : 'run', auth };
  }

  async imagePulled(): Promise<void> {}

  /** A controller of an earlier release has no such route (404): its clients just never see `preparing`. */
  async pulling(task: Task): Promise<void> {
    await this.client.call('POST', this.taskPath(task, 'pulling'), { accept: [404, 409] });
  }

  async start(task: Task): Promise<string | null> {
    const { status, body } = await this.client.call('POST', this.taskPath(task, 'start'), {
      json: { hostname: os.hostname() },
      accept: [409],
    });
    return status === 409 ? null : (body.task_token as string);
  }

  /**
   * Numbered chunks: one sent again after a lost answer is not written twice. Tried again, like
   * a run's end, while the API answers 5xx or cannot be reached (a controller restarting): a
   * chunk given up leaves a gap in the log.
   */
  async appendLog(task: Task, chunk: Buffer): Promise<void> {
    const seq = (this.logSeq.get(task.id) ?? 0) + 1;
    this.logSeq.set(task.id, seq);
    const send = () =>
      this.client.call('POST', this.taskPath(task, 'log'), {
        query: { seq, max_bytes: this.config.worker.maxLogBytes },
        raw: chunk,
      });
    await retryWhile(send, isPassing, FINISH_RETRY_MS);
  }

  /** The end of a run is tried again while the API answers 5xx or cannot be reached (see DirectBackend.finish). */
  async finish(task: Task, from: TaskStatus[], outcome: TaskOutcome): Promise<boolean> {
    const { body } = await retryWhile(
      () =>
        this.client.call('POST', this.taskPath(task, 'finish'), {
          json: { from, status: outcome.status, ...(outcome.msg ? { msg: outcome.msg } : {}) },
        }),
      isPassing,
      FINISH_RETRY_MS,
    );
    return body.ended === true;
  }

  async release(task: Task): Promise<void> {
    this.logSeq.delete(task.id);
    await this.client.call('POST', this.taskPath(task, 'release'));
  }
}
