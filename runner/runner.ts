import os from 'node:os';
import { DelayedError, Worker, type Job } from 'bullmq';
import Docker from 'dockerode';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Config } from '../src/core/config.js';
import { newObjectId } from '../src/core/ids.js';
import { storeIdOf } from '../src/core/store-id.js';
import { sleep } from '../src/core/time.js';
import { queueNameOf, type TaskJob } from '../src/worker/tasks/distribution.js';
import type { HeldSlot } from '../src/worker/tasks/concurrency-gate.js';
import { livenessMsOf, type RunnerInstance } from '../src/worker/clusters/runner-registry.js';
import type { WorkerServices } from '../src/worker/services.js';
import { ColdExecutor } from './functions/cold-executor.js';
import { DockerExecutor } from './docker-executor.js';
import { HotFunctionPool } from './functions/hot-function-pool.js';
import type { FunctionExecutor } from '../src/functions/function-executor.js';
import { FunctionWorker } from './functions/function-worker.js';
import { RunnerMetrics } from './metrics.js';
import { openRunnerContext, type OpenedRunnerContext, type RunnerContext } from './runner-context.js';
import { LABELS, removeOrphanContainers } from './tasks/orphans.js';
import { TaskRun, type RunnerIdentity } from './tasks/task-run.js';
import { VERSION } from '../src/core/version.js';

/** After the drain bound, how long stopped containers get to report before we give up. */
const FORCED_STOP_MS = 15000;

/**
 * The runner daemon: takes tasks of one cluster from BullMQ, runs each in a container,
 * heartbeats as an instance of the cluster, obeys cancels, and drains on stop.
 */
export class Runner {
  readonly id: string;
  private readonly runs = new Map<string, TaskRun>();
  private readonly identity: RunnerIdentity;
  private readonly executor: DockerExecutor;
  private readonly createdAt = Date.now();
  private worker: Worker<TaskJob> | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;
  private stopping: Promise<void> | null = null;
  private retiring = false;
  private readonly stopped: Promise<boolean>;
  private markStopped: (cleanly: boolean) => void = () => {};
  private readonly metrics: RunnerMetrics;
  private readonly functions: FunctionWorker;
  private readonly config: Config;
  private readonly ctx: RunnerContext;
  private readonly services: WorkerServices;

  private constructor(
    private readonly opened: OpenedRunnerContext,
    readonly log: Logger,
    docker: Docker,
    registry: Registry,
    hotFunctions: FunctionExecutor | undefined,
  ) {
    this.ctx = opened.ctx;
    this.config = this.ctx.config;
    this.services = this.ctx.worker;
    const { config, redisUrl } = this.ctx;
    this.id = config.runner.instanceId ?? newObjectId();
    this.stopped = new Promise((resolve) => (this.markStopped = resolve));
    this.metrics = new RunnerMetrics(registry, config.runner.cluster, config.runner.slots, () => this.runs.size);
    this.executor = new DockerExecutor(docker);
    this.identity = {
      id: this.id,
      labels: {
        [LABELS.managed]: 'true',
        [LABELS.store]: storeIdOf(redisUrl, config.keyPrefix),
        [LABELS.runner]: this.id,
        [LABELS.cluster]: config.runner.cluster,
      },
    };
    this.functions = this.functionWorker(docker, hotFunctions);
  }

  /** Function calls of the cluster: `default` ones in a container each, hot formats through a pool of hot containers. */
  private functionWorker(docker: Docker, hotFunctions: FunctionExecutor | undefined): FunctionWorker {
    const { runner: settings, functions } = this.config;
    const cold = new ColdExecutor(docker, this.executor, {
      network: settings.network,
      pidsLimit: settings.pidsLimit,
      nanoCpus: settings.milliCpus * 1_000_000,
      labels: this.identity.labels,
      maxLogBytes: functions.maxLogBytes,
    });
    const options = {
      cluster: settings.cluster,
      runnerId: this.id,
      slots: functions.runnerSlots,
      reclaimEveryMs: settings.stalledCheckMs,
      isAlive: (runnerId: string) => this.services.runners.isAlive(settings.cluster, runnerId),
    };
    const log = this.log.child({ component: 'functions' });
    const hot =
      hotFunctions ??
      new HotFunctionPool(docker, {
        labels: this.identity.labels,
        network: settings.network,
        pidsLimit: settings.pidsLimit,
        milliCpus: settings.milliCpus,
        log,
      });
    const { functions: stores, bus, functionCallConnection } = this.ctx;
    return new FunctionWorker(stores, bus, functionCallConnection, { cold, hot }, options, log);
  }

  /**
   * `registry`: where the runner's metrics go (the controller's, in the all-in-one process);
   * `hotFunctions`: the executor of the hot function formats (http, json); a HotFunctionPool on `docker` by default.
   */
  static async start(
    config: Config,
    redisUrl: string,
    log: Logger,
    docker = new Docker(),
    registry = new Registry(),
    hotFunctions?: FunctionExecutor,
  ): Promise<Runner> {
    const opened = openRunnerContext(config, redisUrl, registry);
    const runner = new Runner(opened, log.child({ component: 'runner' }), docker, registry, hotFunctions);
    try {
      await runner.begin();
    } catch (error) {
      await opened.close();
      throw error;
    }
    return runner;
  }

  get cluster(): string {
    return this.config.runner.cluster;
  }

  private async begin(): Promise<void> {
    const { runner: settings } = this.config;
    await this.heartbeat();
    await this.sweepOrphans();
    this.unsubscribe = await this.ctx.bus.subscribe(this.services.keys.cancelChannel(), (taskId) =>
      this.runs.get(taskId)?.stop('cancel'),
    );
    this.worker = new Worker<TaskJob>(queueNameOf(settings.cluster), (job, token) => this.process(job, token), {
      connection: this.ctx.taskQueueConnection,
      prefix: this.services.keys.bullPrefix(),
      concurrency: settings.slots,
      lockDuration: settings.lockMs,
      stalledInterval: settings.stalledCheckMs,
      maxStalledCount: 100,
      removeOnComplete: { count: 0 },
      removeOnFail: { count: 0 },
    });
    this.worker.on('error', (error) => this.log.error({ err: error }, 'task queue error'));
    await this.functions.start();
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), settings.heartbeatMs);
    this.sweepTimer = setInterval(() => void this.sweepOrphans(), settings.stalledCheckMs);
    this.log.info({ id: this.id, cluster: settings.cluster, slots: settings.slots }, 'runner started');
    if (settings.network === 'host') {
      this.log.warn(
        "FERRUM_RUNNER_NETWORK=host: task and function containers share this machine's network, loopback services included",
      );
    }
  }

  private async process(job: Job<TaskJob>, token?: string): Promise<void> {
    const run = new TaskRun(
      {
        config: this.config,
        worker: this.services,
        executor: this.executor,
        runner: this.identity,
        log: this.log,
        metrics: this.metrics,
      },
      job.data.project_id,
      job.data.task_id,
    );
    this.runs.set(job.data.task_id, run);
    void this.heartbeat();
    try {
      if ((await run.execute()) === 'gated') {
        // Every slot of its code package is held: back to the queue, not counted as an attempt.
        await job.moveToDelayed(Date.now() + this.config.runner.gateRetryMs, token);
        throw new DelayedError();
      }
    } catch (error) {
      if (error instanceof DelayedError) throw error;
      // The task record could not be updated (Redis gone): the stalled check gives it back later.
      this.log.error({ err: error, task: job.data.task_id }, 'task run failed');
    } finally {
      this.runs.delete(job.data.task_id);
      void this.heartbeat();
    }
  }

  private heldSlots(): HeldSlot[] {
    return [...this.runs.values()].flatMap((run) => (run.heldSlot ? [run.heldSlot] : []));
  }

  private instance(): RunnerInstance {
    return {
      instance_id: this.id,
      cluster: this.cluster,
      hostname: os.hostname(),
      slots: this.config.runner.slots,
      busy: this.runs.size,
      tasks: [...this.runs.keys()],
      version: VERSION,
      created_at: this.createdAt,
      updated_at: Date.now(),
      expires_at: 0,
    };
  }

  private async heartbeat(): Promise<void> {
    if (!this.heartbeatTimer && this.stopping) return;
    try {
      const livenessMs = livenessMsOf(this.config.runner.heartbeatMs);
      await this.services.runners.heartbeat(this.instance(), livenessMs);
      await this.services.gate.renew(this.heldSlots(), livenessMs);
      await this.obeyRetirement();
    } catch (error) {
      this.log.warn({ err: error }, 'heartbeat failed');
    }
  }

  /** An instance set to KILL takes no more tasks, finishes the running ones (however long), then stops. */
  private async obeyRetirement(): Promise<void> {
    if (this.stopping || !this.worker) return;
    const type = await this.services.instances.typeOf(this.cluster, this.id);
    if (type !== 'KILL' && type !== 'TERMINATE') return;
    this.log.info(
      { id: this.id, running: this.runs.size },
      'instance retired: finishing the running tasks, taking no more',
    );
    this.retiring = true;
    this.stop().catch((error: unknown) => this.log.error({ err: error }, 'retired runner failed to stop cleanly'));
  }

  /** Resolves once the runner has stopped (true: cleanly), whether by stop() or because its instance was retired. */
  whenStopped(): Promise<boolean> {
    return this.stopped;
  }

  private async sweepOrphans(): Promise<void> {
    try {
      await removeOrphanContainers(
        this.executor,
        this.services.runners,
        this.identity.labels[LABELS.store]!,
        this.id,
        this.log,
      );
    } catch (error) {
      this.log.warn({ err: error }, 'could not look for containers of stopped runners');
    }
  }

  /** Drains: takes no new task, lets running ones finish for up to drainMs, then stops them. */
  stop(): Promise<void> {
    this.stopping ??= this.drain().then(
      () => this.markStopped(true),
      (error: unknown) => {
        this.markStopped(false);
        throw error;
      },
    );
    return this.stopping;
  }

  /** Heartbeats go on while draining: containers of a runner that heartbeats are not orphans. */
  private async drain(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const functionsStopped = this.functions.stop(this.config.runner.drainMs);
    const worker = this.worker;
    if (worker) {
      const closed = worker.close();
      // A retired instance is never cut short: its tasks run to their own timeout.
      const bound = this.retiring
        ? new Promise<boolean>(() => {})
        : sleep(this.config.runner.drainMs).then(() => false);
      const drained = await Promise.race([closed.then(() => true), bound]);
      if (!drained) {
        this.log.warn({ tasks: [...this.runs.keys()] }, 'drain time is up: stopping the remaining tasks');
        for (const run of this.runs.values()) run.stop('shutdown');
        await Promise.race([closed, sleep(FORCED_STOP_MS)]);
      }
    }
    await functionsStopped;
    await this.executor.settle();
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    await this.unsubscribe?.();
    await this.services.runners.deregister(this.cluster, this.id).catch(() => {});
    await this.opened.close();
    this.log.info({ id: this.id }, 'runner stopped');
  }
}
