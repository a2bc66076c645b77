import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import type { Logger } from 'pino';
import { askWorker } from './ask-worker.js';
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
  /** The live workers that run their start (they said `starting`; before, they only load code). */
  private readonly starting = new Set<Worker>();
  /** The live workers that said they are ready. */
  private readonly ready = new Set<Worker>();
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

  /**
   * Resolves with the first worker's report once every worker listens, or, once `stopRequested`
   * is aborted, as soon as the first one does (drain() then stops the others).
   */
  async start(stopRequested: AbortSignal): Promise<WorkerReady> {
    const first = await this.fork();
    if (!stopRequested.aborted) {
      const rest = Array.from({ length: this.options.count - 1 }, () => this.fork());
      await Promise.race([Promise.all(rest), once(stopRequested, 'abort')]);
    }
    this.started = true;
    return first;
  }

  /**
   * Every ready worker's drain (/ready 503 while serving); resolves when their windows are over.
   * No restarts from now on, and the workers still starting stop now: they have nothing to drain.
   */
  async drain(): Promise<void> {
    this.endRestarts();
    this.stopStarting();
    await Promise.all([...this.ready].map((worker) => askWorker(worker, { ferrum: 'drain' }, 'drained')));
  }

  /** Stops every worker gracefully (no restarts from now on); resolves once they all exited. */
  async stop(): Promise<void> {
    this.endRestarts();
    this.stopStarting();
    await Promise.all(this.workers().map((worker) => askWorker(worker, { ferrum: 'stop' }, null)));
  }

  /** Kills every worker at once (a second signal, or a start that failed). */
  kill(): void {
    this.endRestarts();
    for (const worker of this.live) worker.process.kill('SIGKILL');
  }

  /**
   * A worker running its start is told to stop (it gives its start up, or, listening already,
   * stops gracefully once started); one still loading its code holds nothing and is ended
   * (SIGTERM: it ignores signals once it runs, and then says `starting`, which is answered `stop`).
   */
  private stopStarting(): void {
    const notReady = this.workers().filter((worker) => !this.ready.has(worker));
    if (notReady.length > 0)
      this.options.log.info({ starting: notReady.length }, 'stopping HTTP workers still starting');
    for (const worker of notReady) {
      if (worker.isConnected()) worker.send({ ferrum: 'stop' } satisfies PrimaryMessage);
      if (!this.starting.has(worker)) worker.process.kill('SIGTERM');
    }
  }

  private endRestarts(): void {
    this.stopping = true;
    for (const timer of this.restarts) clearTimeout(timer);
    this.restarts.clear();
  }

  private fork(): Promise<WorkerReady> {
    const worker = cluster.fork(this.options.env);
    const startedAt = Date.now();
    this.live.add(worker);
    return new Promise((resolve, reject) => {
      let ready = false;
      worker.on('message', (message: unknown) => {
        if (!isWorkerMessage(message)) return;
        if (message.ferrum === 'starting') return this.onStarting(worker);
        if (message.ferrum !== 'ready') return this.options.onMessage(worker, message);
        ready = true;
        this.ready.add(worker);
        resolve(message);
      });
      worker.once('exit', (code, signal) => {
        this.live.delete(worker);
        this.starting.delete(worker);
        this.ready.delete(worker);
        if (!ready) reject(new Error(`an HTTP worker exited while starting (${signal ?? `exit code ${code}`})`));
        if (this.started && !this.stopping) this.restartLater(worker, Date.now() - startedAt, code, signal);
      });
    });
  }

  private onStarting(worker: Worker): void {
    this.starting.add(worker);
    // A stop that came while it loaded its code (the message may have come before its listener).
    if (this.stopping) worker.send({ ferrum: 'stop' } satisfies PrimaryMessage);
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
