import { isRedisFull, isRedisUnavailable, type RedisClient } from '../../src/core/redis.js';
import { retryWhile } from '../../src/core/time.js';
import { FailureLog } from '../../src/core/failure-log.js';
import os from 'node:os';
import { DelayedError, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../../src/core/config.js';
import { storeIdOf } from '../../src/core/store-id.js';
import { livenessMsOf, type RunnerInstance } from '../../src/worker/clusters/runners/runner-registry.js';
import type { EngineImage } from '../../src/worker/codes/images/private-images.js';
import type { TaskOutcome } from '../../src/worker/tasks/running/runner-tasks.js';
import { queueNameOf, type TaskJob } from '../../src/worker/tasks/queues/distribution.js';
import type { WorkerServices } from '../../src/worker/services.js';
import type { CodeRevision, Task, TaskStatus } from '../../src/worker/types.js';
import type { RunnerContext } from '../runner-context.js';
import type { HeartbeatAnswer, ImageAccess, RunnerBackend, TaskBackend, TaskHandlers } from './backend.js';

/** How long a run's end is tried again while Redis is unavailable. */
const FINISH_RETRY_MS = 30_000;

/** A runner inside the installation: takes BullMQ jobs and changes task records in Redis itself. */
export class DirectBackend implements RunnerBackend, TaskBackend {
  readonly mode = 'direct';
  readonly tasks: TaskBackend = this;
  readonly storeId: string;
  private readonly connection: RedisClient;
  private readonly services: WorkerServices;
  private worker: Worker<TaskJob> | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;
  private readonly queueHealth: FailureLog;
  private queuePaused = false;
  private stoppingQueue = false;

  constructor(
    private readonly config: Config,
    redisUrl: string,
    private readonly ctx: RunnerContext,
    private readonly runnerId: string,
    private readonly log: Logger,
  ) {
    this.storeId = storeIdOf(redisUrl, config.keyPrefix);
    this.connection = ctx.taskQueueConnection;
    this.services = ctx.worker;
    this.queueHealth = new FailureLog(log, 'task queue');
  }

  private get leaseMs(): number {
    return livenessMsOf(this.config.runner.heartbeatMs);
  }

  async startTaking(handlers: TaskHandlers): Promise<void> {
    const settings = this.config.runner;
    this.unsubscribe = await this.ctx.bus.subscribe(this.services.keys.cancelChannel(), (taskId) =>
      handlers.cancel(taskId),
    );
    this.worker = new Worker<TaskJob>(
      queueNameOf(settings.cluster),
      (job, token) => this.process(job, token, handlers),
      {
        connection: this.connection,
        prefix: this.services.keys.bullPrefix(),
        concurrency: settings.slots,
        lockDuration: settings.lockMs,
        stalledInterval: settings.stalledCheckMs,
        maxStalledCount: 100,
        removeOnComplete: { count: 0 },
        removeOnFail: { count: 0 },
      },
    );
    this.worker.on('error', (error) => this.queueFailed(error));
    this.worker.on('active', () => this.queueHealth.succeeded());
    this.worker.on('drained', () => this.queueHealth.succeeded());
  }

  /**
   * BullMQ's own loop retries errors other than lost connections at once (a Redis answering
   * errors would make it spin): the worker takes a growing pause instead, logged once.
   */
  private queueFailed(error: unknown): void {
    const pauseMs = this.queueHealth.failed(error);
    const worker = this.worker;
    if (!worker || this.stoppingQueue || this.queuePaused) return;
    this.queuePaused = true;
    void worker.pause(true).catch(() => undefined);
    setTimeout(() => {
      this.queuePaused = false;
      if (!this.stoppingQueue) worker.resume();
    }, pauseMs).unref();
  }

  private async process(job: Job<TaskJob>, token: string | undefined, handlers: TaskHandlers): Promise<void> {
    const { project_id: projectId, task_id: taskId } = job.data;
    try {
      const task = await this.services.runnerTasks.take(projectId, taskId, this.runnerId, this.leaseMs, this.log);
      if (task === 'gated') {
        // Every slot of its code package is held: back to the queue, not counted as an attempt.
        await job.moveToDelayed(Date.now() + this.config.runner.gateRetryMs, token);
        throw new DelayedError();
      }
      if (task) await handlers.run(task);
    } catch (error) {
      if (error instanceof DelayedError) throw error;
      // The task record could not be updated (Redis gone): the stalled check gives it back later.
      this.log.error({ err: error, task: taskId }, 'task run failed');
    }
  }

  async stopTaking(): Promise<void> {
    this.stoppingQueue = true;
    await this.worker?.close();
  }

  async heartbeat(instance: RunnerInstance, running: Task[]): Promise<HeartbeatAnswer> {
    const { runners, gate, instances } = this.services;
    await runners.heartbeat(instance, this.leaseMs);
    await gate.renew(
      running.map((task) => ({ projectId: task.project_id, codeId: task.code_id, taskId: task.id })),
      this.leaseMs,
    );
    const type = await instances.typeOf(instance.cluster, instance.instance_id);
    // Cancels arrive on the bus, as they happen.
    return { retire: type === 'KILL' || type === 'TERMINATE', cancelled: [] };
  }

  isAlive(cluster: string, runnerId: string): Promise<boolean> {
    return this.services.runners.isAlive(cluster, runnerId);
  }

  async deregister(instance: RunnerInstance): Promise<void> {
    await this.services.runners.deregister(instance.cluster, instance.instance_id);
  }

  async close(): Promise<void> {
    // The connections are the runner context's: it closes them.
    await this.unsubscribe?.();
  }

  revision(task: Task): Promise<CodeRevision | null> {
    return this.services.codes.revisionById(task.project_id, task.code_id, task.code_history_id);
  }

  codeZip(_task: Task, revision: CodeRevision): Promise<Buffer | null> {
    return this.services.codes.zip(revision);
  }

  async imageAccess(task: Task, image: string, onEngine: EngineImage | null): Promise<ImageAccess> {
    const auth = await this.services.credentials.forImage(task.project_id, image);
    const decision = await this.services.privateImages.decide(image, task.project_id, auth !== undefined, onEngine);
    return decision.action === 'refuse' ? decision : { action: decision.action, auth };
  }

  imagePulled(task: Task, image: string, imageId: string): Promise<void> {
    return this.services.privateImages.recordPull(image, task.project_id, imageId);
  }

  async pulling(task: Task): Promise<void> {
    await this.services.statuses.markPulling(task.project_id, task.id, this.runnerId);
  }

  /** preparing → running, tried again like finish while Redis is unavailable for a moment. */
  start(task: Task): Promise<string | null> {
    return retryWhile(
      () => this.services.runnerTasks.start(task, this.runnerId, os.hostname()),
      mayPassSoon,
      FINISH_RETRY_MS,
    );
  }

  async appendLog(task: Task, chunk: Buffer): Promise<void> {
    await this.services.statuses.appendLog(task.project_id, task.id, chunk, this.config.worker.maxLogBytes);
  }

  /**
   * The end of a run is the write that must not be lost: while Redis refuses it for a moment
   * (a failover, a restart, a full memory being freed) it is tried again, for up to FINISH_RETRY_MS. The compare-and-set
   * makes a second try of a write that did land a no-op.
   */
  finish(task: Task, from: TaskStatus[], outcome: TaskOutcome): Promise<boolean> {
    return retryWhile(
      () => this.services.runnerTasks.finish(task, this.runnerId, from, outcome, this.log),
      mayPassSoon,
      FINISH_RETRY_MS,
    );
  }

  release(task: Task, taskToken: string | null): Promise<void> {
    return this.services.runnerTasks.release(task, taskToken);
  }
}

/** Redis refusing for a moment: unavailable, or full (space is being freed, or memory added). */
const mayPassSoon = (error: unknown) => isRedisUnavailable(error) || isRedisFull(error);
