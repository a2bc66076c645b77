import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { isWorkerMessage, type PrimaryMessage, type WorkerMessage } from './messages.js';

/** What the first worker reports once it listens. */
export type WorkerReady = Extract<WorkerMessage, { ferrum: 'ready' }>;

export interface SupervisorOptions {
  count: number;
  /** Variables the workers get over the primary's environment. */
  env: Record<string, string>;
  log: Logger;
  /** Every other message of a worker (the metrics'). */
  onMessage(worker: Worker, message: WorkerMessage): void;
}

/** The first restart of a worker that died waits this long; each quick death in a row doubles it. */
const FIRST_RESTART_MS = 500;
const LONGEST_RESTART_MS = 30_000;
/** A worker that lived this long was healthy: the next death restarts it after FIRST_RESTART_MS again. */
const HEALTHY_AFTER_MS = 30_000;

/**
 * The primary's HTTP workers (node:cluster, one shared port): started one first (a first start's
 * bootstrap runs once) then the rest together, each that dies restarted with a growing delay,
 * and, on a stop, drained and stopped together.
 */
export class WorkerSupervisor {
  private readonly live = new Set<Worker>();
  private started = false;
  private stopping = false;
  private quickDeaths = 0;
  private readonly restarts = new Set<NodeJS.Timeout>();

  constructor(private readonly options: SupervisorOptions) {
    // Each worker accepts its connections from the shared socket itself: no connection passes
    // through this process, whose event loop also runs the runner (round-robin hands each over).
    cluster.schedulingPolicy = cluster.SCHED_NONE;
  }

  workers(): Worker[] {
    return [...this.live];
  }

  /** Resolves with the first worker's report once every worker listens. */
  async start(): Promise<WorkerReady> {
    const first = await this.fork();
    const rest = Array.from({ length: this.options.count - 1 }, () => this.fork());
    await Promise.all(rest);
    this.started = true;
    return first;
  }

  /** Every worker's drain (/ready 503 while serving); resolves when their windows are over. */
  async drain(): Promise<void> {
    await Promise.all(this.workers().map((worker) => this.ask(worker, { ferrum: 'drain' }, 'drained')));
  }

  /** Stops every worker gracefully (no restarts from now on); resolves once they all exited. */
  async stop(): Promise<void> {
    this.endRestarts();
    await Promise.all(this.workers().map((worker) => this.ask(worker, { ferrum: 'stop' }, null)));
  }

  /** Kills every worker at once (a second signal, or a start that failed). */
  kill(): void {
    this.endRestarts();
    for (const worker of this.live) worker.process.kill('SIGKILL');
  }

  private endRestarts(): void {
    this.stopping = true;
    for (const timer of this.restarts) clearTimeout(timer);
    this.restarts.clear();
  }

  /** Sends `message`; resolves on the answer `until` (or on the worker's exit, which ends any wait). */
  private ask(worker: Worker, message: PrimaryMessage, until: WorkerMessage['ferrum'] | null): Promise<void> {
    return new Promise((resolve) => {
      worker.once('exit', () => resolve());
      if (until)
        worker.on('message', (answer: unknown) => isWorkerMessage(answer) && answer.ferrum === until && resolve());
      if (worker.isConnected()) worker.send(message);
      else resolve();
    });
  }

  private fork(): Promise<WorkerReady> {
    const worker = cluster.fork(this.options.env);
    const startedAt = Date.now();
    this.live.add(worker);
    return new Promise((resolve, reject) => {
      let ready = false;
      worker.on('message', (message: unknown) => {
        if (!isWorkerMessage(message)) return;
        if (message.ferrum !== 'ready') return this.options.onMessage(worker, message);
        ready = true;
        resolve(message);
      });
      worker.once('exit', (code, signal) => {
        this.live.delete(worker);
        if (!ready) reject(new Error(`an HTTP worker exited while starting (${signal ?? `exit code ${code}`})`));
        if (this.started && !this.stopping) this.restartLater(worker, Date.now() - startedAt, code, signal);
      });
    });
  }

  private restartLater(worker: Worker, livedMs: number, code: number, signal: string): void {
    this.quickDeaths = livedMs >= HEALTHY_AFTER_MS ? 0 : this.quickDeaths + 1;
    const delayMs = Math.min(LONGEST_RESTART_MS, FIRST_RESTART_MS * 2 ** Math.max(0, this.quickDeaths - 1));
    this.options.log.warn(
      { worker: worker.id, worker_pid: worker.process.pid, code, signal, restart_in_ms: delayMs },
      'an HTTP worker exited; restarting it',
    );
    const timer = setTimeout(() => {
      this.restarts.delete(timer);
      // One that dies while starting is restarted by its own exit.
      this.fork().then(
        (ready) => this.options.log.info({ port: ready.port }, 'HTTP worker restarted'),
        (error: unknown) => this.options.log.error({ err: error }, 'an HTTP worker failed to restart'),
      );
    }, delayMs);
    this.restarts.add(timer);
  }
}
