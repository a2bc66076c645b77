import type { Logger } from 'pino';
import type { Config } from '../../src/core/config.js';
import { ownEntry } from '../../src/core/own-entry.js';
import type { HeldSlot } from '../../src/worker/tasks/running/concurrency-gate.js';
import type { TaskOutcome } from '../../src/worker/tasks/running/runner-tasks.js';
import type { CodeRevision, Task, TaskStatus } from '../../src/worker/types.js';
import type { TaskBackend } from '../backend/backend.js';
import { containerSpecOf } from './container-spec.js';
import { ExecutorError, type DockerExecutor, type ImageInfo, type TaskFilesSource } from '../docker-executor.js';
import { LogShipper } from './log-shipper.js';
import type { RunnerMetrics } from '../metrics.js';
import { taskFilesOf, type TaskFilesOfRun } from './task-files.js';

/** Why a running task's container was stopped early. */
export type StopReason = 'cancel' | 'shutdown';

export interface RunnerIdentity {
  id: string;
  /** Labels every container of this runner carries. */
  labels: Record<string, string>;
}

export interface TaskRunDeps {
  config: Config;
  backend: TaskBackend;
  executor: DockerExecutor;
  runner: RunnerIdentity;
  log: Logger;
  metrics: RunnerMetrics;
}

/** One task on one runner, from taking it to its final status. */
export class TaskRun {
  private readonly abort = new AbortController();
  /** When the task started running (for the run duration); null before. */
  private runningSince: number | null = null;

  /** `task`: taken by this runner (preparing on it). */
  constructor(
    private readonly deps: TaskRunDeps,
    readonly task: Task,
  ) {}

  get taskId(): string {
    return this.task.id;
  }

  stop(reason: StopReason): void {
    if (!this.abort.signal.aborted) this.abort.abort(reason);
  }

  /** The max_concurrency slot this run holds, from taking its task until its end. */
  get heldSlot(): HeldSlot {
    return { projectId: this.task.project_id, codeId: this.task.code_id, taskId: this.task.id };
  }

  /** Runs the task to its end, then gives back its slot and task token. */
  async execute(): Promise<void> {
    const { backend } = this.deps;
    const task = this.task;
    let files: TaskFilesOfRun | null = null;
    let token: string | null = null;
    try {
      const revision = await backend.revision(task);
      if (!revision)
        return await this.finish(['preparing'], {
          status: 'error',
          msg: `Code package ${task.code_name} revision ${task.code_rev} no longer exists`,
        });
      if (revision.archive_pruned)
        return await this.finish(['preparing'], {
          status: 'error',
          msg: `Code package ${task.code_name} revision ${task.code_rev}'s zip was deleted: only the newest revisions keep theirs (FERRUM_WORKER_REVISIONS_KEPT)`,
        });
      const image = this.imageOf(revision);
      const imageInfo = revision.image
        ? await this.tenantImage(image)
        : await this.deps.executor.ensureImage(image, undefined, { operator: true, beforePull: this.markPulling });
      if ('reason' in imageInfo) return await this.finish(['preparing'], { status: 'error', msg: imageInfo.reason });
      files = await taskFilesOf(
        task.payload,
        revision.config,
        await backend.codeZip(task, revision),
        this.deps.config.worker.zip,
        { executor: this.deps.executor, diskMb: this.deps.config.runner.diskMb },
      );
      token = await backend.start(task);
      if (token === null) return;
      this.runningSince = this.deps.metrics.started(task.created_at + task.delay * 1000);
      this.deps.log.info(
        { task: task.id, project: task.project_id, code: task.code_name, cluster: task.cluster, image },
        'task started',
      );
      const outcome = await this.runContainer(task, revision, { name: image, cmd: imageInfo.cmd }, files.source, token);
      if (outcome) await this.finish(['running'], outcome);
    } catch (error) {
      const msg = error instanceof ExecutorError ? error.message : `Runner error: ${(error as Error).message}`;
      if (!(error instanceof ExecutorError)) this.deps.log.error({ err: error, task: task.id }, 'task run failed');
      await this.finish(['preparing', 'running'], { status: 'error', msg });
    } finally {
      await files?.remove();
      await backend.release(task, token);
    }
  }

  /**
   * A tenant's image, checked against what the engine holds under its reference (by id, so a
   * private image named by id, prefix or digest is found); pulled first when the project's
   * credentials say so. Checked again when the reference came to name another image meanwhile
   * (a pull of a name the engine lacked). A stack's image is the operator's, for every project,
   * from whatever registry the operator names.
   */
  private async tenantImage(image: string): Promise<ImageInfo | { reason: string }> {
    const { backend, executor } = this.deps;
    const onEngine = await executor.imageOnEngine(image);
    const access = await backend.imageAccess(this.task, image, onEngine);
    if (access.action === 'refuse') return access;
    const info = await executor.ensureImage(image, access.auth, {
      pull: access.action === 'pull',
      beforePull: this.markPulling,
    });
    if (access.action === 'pull' && access.auth) await backend.imagePulled(this.task, image, info.id);
    else if (info.id !== onEngine?.id) {
      const again = await backend.imageAccess(this.task, image, await executor.imageOnEngine(image));
      if (again.action === 'refuse') return again;
    }
    return info;
  }

  /**
   * Marks the task as pulling its image (shown `preparing`). Only what clients see depends on
   * it, so a failure (Redis or the runner API unavailable a moment) is logged and the run goes on.
   */
  private readonly markPulling = async (): Promise<void> => {
    await this.deps.backend.pulling(this.task).catch((error: unknown) => {
      this.deps.log.warn({ err: error, task: this.task.id }, 'could not mark the task as pulling its image');
    });
  };

  private imageOf(revision: CodeRevision): string {
    if (revision.image) return revision.image;
    const image = revision.stack ? ownEntry(this.deps.config.worker.stacks, revision.stack) : undefined;
    if (!image) throw new ExecutorError(`Stack ${revision.stack ?? '(none)'} is not configured on this runner`);
    return image;
  }

  /** Runs the container to its end; null when the task was cancelled. */
  private async runContainer(
    task: Task,
    revision: CodeRevision,
    image: { name: string; cmd: string[] },
    files: TaskFilesSource,
    taskToken: string,
  ): Promise<TaskOutcome | null> {
    const { backend, config, executor, runner } = this.deps;
    const shipper = new LogShipper((chunk) => backend.appendLog(task, chunk), config.runner.logFlushMs);
    try {
      const labels = { ...runner.labels, 'ferrum.task': task.id, 'ferrum.project': task.project_id };
      const spec = containerSpecOf({
        task,
        revision,
        image: image.name,
        imageCmd: image.cmd,
        files,
        labels,
        config: config.runner,
        taskToken,
      });
      const result = await executor.run(spec, (chunk) => shipper.push(chunk), this.abort.signal, task.timeout * 1000);
      const reason = this.abort.signal.reason as StopReason | undefined;
      // A cancelled task's log is closed to this runner: the last lines are written if they may be (below).
      if (reason === 'cancel') return null;
      await shipper.close();
      if (result.timedOut) return { status: 'timeout', msg: `Task exceeded its timeout of ${task.timeout} seconds` };
      if (reason === 'shutdown') return { status: 'error', msg: 'The runner shut down before the task finished' };
      if (result.exitCode === 0) return { status: 'complete' };
      const oom = result.oomKilled ? ` (out of memory: limit ${config.runner.memoryMb} MB)` : '';
      return { status: 'error', msg: `Exited with code ${result.exitCode}${oom}` };
    } finally {
      await shipper.close().catch(() => {});
    }
  }

  private async finish(from: TaskStatus[], outcome: TaskOutcome): Promise<void> {
    const task = this.task;
    const ended = await this.deps.backend.finish(task, from, outcome);
    if (!ended) return;
    this.deps.metrics.finished(outcome.status, this.runningSince);
    const runMs = this.runningSince === null ? null : Date.now() - this.runningSince;
    this.deps.log.info(
      { task: task.id, project: task.project_id, cluster: task.cluster, status: outcome.status, run_ms: runMs },
      'task finished',
    );
  }
}
