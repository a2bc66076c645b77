import type { RunnerRegistry } from '../../clusters/runners/runner-registry.js';
import type { Task, TaskStatus } from '../../types.js';
import type { ConcurrencyGate } from './concurrency-gate.js';
import type { TaskStatusChanges } from '../records/task-status.js';
import type { TaskStore } from '../records/task-store.js';
import type { TaskTokens } from './task-tokens.js';
import type { TaskService } from '../task-service.js';

/** Where task runs note retries and lost runners (a pino or fastify logger). */
export interface TaskLog {
  info(details: object, msg: string): void;
  warn(details: object, msg: string): void;
}

/** How long a task token outlives the task's timeout, should its revoke be missed. */
const TOKEN_GRACE_MS = 60_000;

/** How a task run ends: its final status and message. */
export interface TaskOutcome {
  status: TaskStatus;
  msg?: string;
}

interface Deps {
  tasks: TaskStore;
  statuses: TaskStatusChanges;
  gate: ConcurrencyGate;
  taskTokens: TaskTokens;
  service: TaskService;
  runners: RunnerRegistry;
}

/**
 * What happens to a task a runner takes, from queued to its end: the same compare-and-set
 * scripts whether the runner reaches Redis itself or the controller acts for it (runner API).
 */
export class RunnerTasks {
  constructor(private readonly deps: Deps) {}

  /**
   * Takes the task for `runnerId` (queued → preparing, holding a max_concurrency slot for
   * `leaseMs`); null when it is not this runner's to run (or was set aside because its queue is
   * paused), 'gated' when every slot of its code package is held.
   */
  async take(projectId: string, taskId: string, runnerId: string, leaseMs: number, log: TaskLog) {
    const task = await this.deps.tasks.find(projectId, taskId);
    if (!task) return null;
    let taken = await this.deps.statuses.take(task, runnerId, leaseMs);
    if (taken.previous === 'preparing' && !taken.changed && (await this.giveBackUnstarted(task, runnerId, log)))
      taken = await this.deps.statuses.take(task, runnerId, leaseMs);
    if (taken.gated) return 'gated' as const;
    if (taken.changed) return task;
    if (taken.previous === 'preparing' || taken.previous === 'running') await this.endLostRun(task, runnerId, log);
    return null;
  }

  /** preparing → running; the task token for its container, or null when the task is no longer this runner's. */
  async start(task: Task, runnerId: string, runnerHost: string): Promise<string | null> {
    const started = await this.deps.statuses.change(task.project_id, task.id, {
      from: ['preparing'],
      to: 'running',
      runner: runnerId,
      fields: { runner_host: runnerHost },
    });
    if (!started.changed) return null;
    return this.deps.taskTokens.issue(
      { project_id: task.project_id, task_id: task.id },
      task.timeout * 1000 + TOKEN_GRACE_MS,
    );
  }

  /** Ends the task held by `runnerId` (with its automatic retry, if one is due); whether this call ended it. */
  async finish(task: Task, runnerId: string, from: TaskStatus[], outcome: TaskOutcome, log: TaskLog): Promise<boolean> {
    const fields: Record<string, string> = outcome.msg ? { msg: outcome.msg } : {};
    const { result, retry } = await this.deps.service.end(task, { from, to: outcome.status, runner: runnerId, fields });
    if (retry) log.info({ task: task.id, retry: retry.id, retry_count: retry.retry_count }, 'task retried');
    return result.changed;
  }

  /** The run is over on the runner: its task token stops working and its slot is free. */
  async release(task: Pick<Task, 'project_id' | 'code_id' | 'id'>, taskToken: string | null): Promise<void> {
    if (taskToken) await this.deps.taskTokens.revoke(taskToken);
    await this.deps.gate.release({ projectId: task.project_id, codeId: task.code_id, taskId: task.id });
  }

  /**
   * preparing → queued: a run its runner never started (its answer lost, its token revoked)
   * goes back to the queue with its max_concurrency slot freed, using none of its retries.
   * Whether it went back (false once it started or ended).
   */
  async giveBack(task: Pick<Task, 'project_id' | 'code_id' | 'id'>, runnerId: string): Promise<boolean> {
    const back = await this.deps.statuses.change(task.project_id, task.id, {
      from: ['preparing'],
      to: 'queued',
      runner: runnerId,
    });
    if (back.changed) await this.release(task, null);
    return back.changed;
  }

  /** BullMQ handed back a task whose runner stopped heartbeating before it started it: queued again. */
  private async giveBackUnstarted(task: Task, runnerId: string, log: TaskLog): Promise<boolean> {
    const holder = task.runner;
    if (!holder || holder === runnerId) return false;
    if (await this.deps.runners.isAlive(task.cluster, holder)) return false;
    const back = await this.giveBack(task, holder);
    if (back) log.info({ task: task.id, runner: holder }, 'task its runner never started queued again');
    return back;
  }

  /** BullMQ handed back a task whose runner stopped heartbeating: it ends as an error. */
  private async endLostRun(task: Task, runnerId: string, log: TaskLog): Promise<void> {
    const holder = task.runner;
    if (!holder || holder === runnerId) return;
    if (await this.deps.runners.isAlive(task.cluster, holder)) return;
    await this.endAsLost(
      task,
      holder,
      `The runner running this task (${holder}) stopped before the task finished`,
      log,
    );
  }

  /**
   * The task sweeper's check of a preparing or running task that no BullMQ job may bring back
   * (its job was finished or lost, e.g. on a Redis master a failover just demoted): it ends as
   * an error when its runner stopped heartbeating, or when the runner's heartbeats, well after
   * the task's last change, no longer list it. Whether it ended the task.
   */
  async endIfLost(task: Task, log: TaskLog): Promise<boolean> {
    const holder = task.runner;
    if (!holder || (task.status !== 'preparing' && task.status !== 'running')) return false;
    if (!(await this.deps.runners.isAlive(task.cluster, holder))) {
      const msg = `The runner running this task (${holder}) stopped before the task finished`;
      return this.endAsLost(task, holder, msg, log);
    }
    const instance = await this.deps.runners.instance(task.cluster, holder);
    // Runners of earlier versions do not list their tasks; a fresh task may not be listed yet.
    if (!instance?.tasks || instance.tasks.includes(task.id)) return false;
    const livenessMs = instance.expires_at - instance.updated_at;
    if (instance.updated_at - task.updated_at <= livenessMs) return false;
    return this.endAsLost(task, holder, `The runner running this task (${holder}) no longer runs it`, log);
  }

  private async endAsLost(task: Task, holder: string, msg: string, log: TaskLog): Promise<boolean> {
    const ended = await this.finish(task, holder, ['preparing', 'running'], { status: 'error', msg }, log);
    if (!ended) return false;
    await this.release(task, null);
    log.warn({ task: task.id, runner: holder }, 'task of a lost run marked error');
    return true;
  }
}
