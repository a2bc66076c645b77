import os from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../../src/core/config.js';
import type { HeldSlot } from '../../src/worker/tasks/concurrency-gate.js';
import { livenessMsOf } from '../../src/worker/clusters/runner-registry.js';
import type { WorkerServices } from '../../src/worker/services.js';
import type { StatusChange } from '../../src/worker/tasks/task-status.js';
import type { CodeRevision, Task, TaskStatus } from '../../src/worker/types.js';
import { containerSpecOf } from './container-spec.js';
import { ExecutorError, type DockerExecutor } from '../docker-executor.js';
import { LogShipper } from './log-shipper.js';
import type { RunnerMetrics } from '../metrics.js';
import { prepareTaskFiles, type TaskFiles } from './task-files.js';

/** How long a task token outlives the task's timeout, should its revoke be missed. */
const TOKEN_GRACE_MS = 60_000;

/** Why a running task's container was stopped early. */
export type StopReason = 'cancel' | 'shutdown';

export interface RunnerIdentity {
  id: string;
  /** Labels every container of this runner carries. */
  labels: Record<string, string>;
}

export interface TaskRunDeps {
  config: Config;
  worker: WorkerServices;
  executor: DockerExecutor;
  runner: RunnerIdentity;
  log: Logger;
  metrics: RunnerMetrics;
}

interface Outcome {
  status: TaskStatus;
  msg?: string;
}

/** One task on one runner, from taking it to its final status. */
export class TaskRun {
  private readonly abort = new AbortController();
  private slot: HeldSlot | null = null;
  /** When the task started running (for the run duration); null before. */
  private runningSince: number | null = null;

  constructor(
    private readonly deps: TaskRunDeps,
    readonly projectId: string,
    readonly taskId: string,
  ) {}

  stop(reason: StopReason): void {
    if (!this.abort.signal.aborted) this.abort.abort(reason);
  }

  /** The max_concurrency slot this run holds, from taking its task until its end. */
  get heldSlot(): HeldSlot | null {
    return this.slot;
  }

  /** Runs the task to its end; 'gated' when it must wait for a max_concurrency slot. */
  async execute(): Promise<'done' | 'gated'> {
    const task = await this.take();
    if (task === 'gated') return 'gated';
    if (!task) return 'done';
    this.slot = { projectId: task.project_id, codeId: task.code_id, taskId: task.id };
    try {
      await this.runTaken(task);
    } finally {
      this.slot = null;
      await this.deps.worker.gate.release({ projectId: task.project_id, codeId: task.code_id, taskId: task.id });
    }
    return 'done';
  }

  private async runTaken(task: Task): Promise<void> {
    const { worker, runner } = this.deps;
    let files: TaskFiles | null = null;
    try {
      const revision = await worker.codes.revisionById(task.project_id, task.code_id, task.code_history_id);
      if (!revision)
        return await this.finish(task, ['preparing'], {
          status: 'error',
          msg: `Code package ${task.code_name} revision ${task.code_rev} no longer exists`,
        });
      const image = this.imageOf(revision);
      const auth = await worker.credentials.forImage(task.project_id, image);
      const access = await worker.privateImages.decide(image, task.project_id, auth !== undefined);
      if (access.action === 'refuse')
        return await this.finish(task, ['preparing'], { status: 'error', msg: access.reason });
      // With credentials the image is pulled with them (the registry checks this project's access).
      await this.deps.executor.ensureImage(image, auth, { pull: access.action === 'pull' });
      if (access.action === 'pull') await worker.privateImages.recordPull(image, task.project_id);
      files = await prepareTaskFiles(
        task.payload,
        revision.config,
        await worker.codes.zip(revision),
        this.deps.config.worker.zip,
      );
      const started = await worker.statuses.change(this.projectId, this.taskId, {
        from: ['preparing'],
        to: 'running',
        runner: runner.id,
        fields: { runner_host: os.hostname() },
      });
      if (!started.changed) return;
      this.runningSince = this.deps.metrics.started(task.created_at + task.delay * 1000);
      this.deps.log.info(
        { task: task.id, project: task.project_id, code: task.code_name, cluster: task.cluster, image },
        'task started',
      );
      const token = await worker.taskTokens.issue(
        { project_id: task.project_id, task_id: task.id },
        task.timeout * 1000 + TOKEN_GRACE_MS,
      );
      try {
        const outcome = await this.runContainer(task, revision, image, files.dir, token);
        if (outcome) await this.finish(task, ['running'], outcome);
      } finally {
        await worker.taskTokens.revoke(token);
      }
    } catch (error) {
      const msg = error instanceof ExecutorError ? error.message : `Runner error: ${(error as Error).message}`;
      if (!(error instanceof ExecutorError)) this.deps.log.error({ err: error, task: this.taskId }, 'task run failed');
      await this.finish(task, ['preparing', 'running'], { status: 'error', msg });
    } finally {
      await files?.remove();
    }
  }

  /**
   * The task, now `preparing` on this runner; null when it is not this runner's to run
   * (or was set aside because its package's queue is paused),
   * 'gated' when it waits for a slot of its code package.
   */
  private async take(): Promise<Task | 'gated' | null> {
    const task = await this.deps.worker.taskStore.find(this.projectId, this.taskId);
    if (!task) return null;
    const taken = await this.deps.worker.statuses.take(
      task,
      this.deps.runner.id,
      livenessMsOf(this.deps.config.runner.heartbeatMs),
    );
    if (taken.gated) return 'gated';
    if (taken.changed) return task;
    if (taken.previous === 'preparing' || taken.previous === 'running') await this.endLostRun(task);
    return null;
  }

  private imageOf(revision: CodeRevision): string {
    if (revision.image) return revision.image;
    const image = revision.stack ? this.deps.config.worker.stacks[revision.stack] : undefined;
    if (!image) throw new ExecutorError(`Stack ${revision.stack ?? '(none)'} is not configured on this runner`);
    return image;
  }

  /** Runs the container to its end; null when the task was cancelled. */
  private async runContainer(
    task: Task,
    revision: CodeRevision,
    image: string,
    filesDir: string,
    taskToken: string,
  ): Promise<Outcome | null> {
    const { worker, config, executor, runner } = this.deps;
    const shipper = new LogShipper(
      (chunk) => worker.statuses.appendLog(this.projectId, this.taskId, chunk, config.worker.maxLogBytes),
      config.runner.logFlushMs,
    );
    try {
      const labels = { ...runner.labels, 'ferrum.task': task.id, 'ferrum.project': task.project_id };
      const spec = containerSpecOf({ task, revision, image, filesDir, labels, config: config.runner, taskToken });
      const result = await executor.run(spec, (chunk) => shipper.push(chunk), this.abort.signal, task.timeout * 1000);
      await shipper.close();
      const reason = this.abort.signal.reason as StopReason | undefined;
      if (reason === 'cancel') return null;
      if (result.timedOut) return { status: 'timeout', msg: `Task exceeded its timeout of ${task.timeout} seconds` };
      if (reason === 'shutdown') return { status: 'error', msg: 'The runner shut down before the task finished' };
      if (result.exitCode === 0) return { status: 'complete' };
      const oom = result.oomKilled ? ` (out of memory: limit ${config.runner.memoryMb} MB)` : '';
      return { status: 'error', msg: `Exited with code ${result.exitCode}${oom}` };
    } finally {
      await shipper.close().catch(() => {});
    }
  }

  private async finish(task: Task, from: TaskStatus[], outcome: Outcome): Promise<void> {
    const fields: Record<string, string> = outcome.msg ? { msg: outcome.msg } : {};
    const ended = await this.end(task, { from, to: outcome.status, runner: this.deps.runner.id, fields });
    if (!ended) return;
    this.deps.metrics.finished(outcome.status, this.runningSince);
    const runMs = this.runningSince === null ? null : Date.now() - this.runningSince;
    this.deps.log.info(
      { task: task.id, project: task.project_id, cluster: task.cluster, status: outcome.status, run_ms: runMs },
      'task finished',
    );
  }

  /** Ends the task (with its automatic retry, if one is due); whether this call ended it. */
  private async end(task: Task, change: StatusChange): Promise<boolean> {
    const { result, retry } = await this.deps.worker.tasks.end(task, change);
    if (retry) this.deps.log.info({ task: task.id, retry: retry.id, retry_count: retry.retry_count }, 'task retried');
    return result.changed;
  }

  /** BullMQ handed back a task whose runner stopped heartbeating: it ends as an error. */
  private async endLostRun(task: Task): Promise<void> {
    const holder = task.runner;
    if (!holder || holder === this.deps.runner.id) return;
    if (await this.deps.worker.runners.isAlive(task.cluster, holder)) return;
    const ended = await this.end(task, {
      from: ['preparing', 'running'],
      to: 'error',
      runner: holder,
      fields: { msg: `The runner running this task (${holder}) stopped before the task finished` },
    });
    if (!ended) return;
    await this.deps.worker.gate.release({ projectId: task.project_id, codeId: task.code_id, taskId: task.id });
    this.deps.log.warn({ task: task.id, runner: holder }, 'task of a lost runner marked error');
  }
}
