import { isRedisFull, type RedisClient } from '../../../core/redis.js';
import { fail } from '../../../core/errors.js';
import { scripts } from '../scripts.js';
import { ActivityHistory, OUTCOMES, type Outcome } from '../../../metrics/history.js';
import type { IndexedTask, WorkerKeys } from '../../keys.js';
import { creationArgs, QUEUED_REFUSALS, queuedBytes, type QueuedRefusal, type QueuedRoom } from './task-store.js';
import type { Task, TaskStatus } from '../../types.js';

/** The fields a progress report sets on the task record. */
const PROGRESS_FIELDS = ['percent', 'msg'] as const;

export interface StatusChange {
  from: TaskStatus[];
  to: TaskStatus;
  /** Only when the task is held by this runner. */
  runner?: string;
  fields?: Record<string, string | number>;
  /** A new queued task retrying this one, written in the same step when the change succeeds and `room` has a place for it. */
  retry?: { task: Task; room: QueuedRoom };
  /** A cancel: it adds no data, so it runs on a full Redis too (cancel-task.lua). */
  cancel?: true;
  /** The moment of the change (its updated_at, start or end time), in ms; now when absent. */
  at?: number;
}

export interface ChangeResult {
  changed: boolean;
  /** The status before the change, or the current one when nothing changed ('' if no task). */
  previous: TaskStatus | '';
  /** The quota that left the change's retry out (the change itself was made). */
  retryRefused?: QueuedRefusal;
}

export interface TakeResult extends ChangeResult {
  /** No max_concurrency slot was free. */
  gated: boolean;
  /** The package's queue is paused or the project suspended: the task was set aside until resume. */
  parked: boolean;
}

/** Every status change of a task, each one compare-and-set script run. */
export class TaskStatusChanges {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
    /** How long a finished task is kept (record, log, index entries). */
    private readonly retentionMs: number,
    /** Where finished tasks are counted for the dashboard's charts. */
    private readonly history: ActivityHistory | null = null,
  ) {}

  async change(projectId: string, taskId: string, change: StatusChange): Promise<ChangeResult> {
    const fields = Object.entries(change.fields ?? {}).flatMap(([field, value]) => [field, String(value)]);
    const indexed = await this.indexedTask(projectId, taskId);
    if (!indexed) return { changed: false, previous: '' };
    const keys = [
      this.keys.task(projectId, taskId),
      this.keys.taskLog(projectId, taskId),
      this.keys.expiringTasks(projectId),
      this.keys.undispatchedTasks(projectId),
      this.keys.projectCounters(projectId),
      this.keys.queuedPayloads(projectId),
      this.keys.queuedPayloadTotal(projectId),
      ...this.keys.statusGroups(projectId, indexed),
    ];
    const args = [
      change.from.join(','),
      change.to,
      String(change.at ?? Date.now()),
      change.runner ?? '',
      String(this.retentionMs),
      String(fields.length),
      ...fields,
    ];
    if (change.retry) {
      const { task, room } = change.retry;
      keys.push(this.keys.task(projectId, task.id));
      args.push(String(room.most), String(room.allowance), String(queuedBytes(task)), ...creationArgs(task));
    }
    const script = change.cancel && !change.retry ? scripts.cancelTask : scripts.setStatus;
    const [changed, previous, retried] = await script.run<[number, string, number?]>(this.redis, keys, args);
    if (changed === 1 && this.history && (OUTCOMES as readonly string[]).includes(change.to)) {
      // The dashboard's charts only: a full Redis refusing the count does not undo the change.
      await this.history.recordTaskOutcome(projectId, change.to as Outcome).catch((error: unknown) => {
        if (!isRedisFull(error)) throw error;
      });
    }
    const result: ChangeResult = { changed: changed === 1, previous: previous as TaskStatus | '' };
    if (retried !== undefined && retried < 0) result.retryRefused = QUEUED_REFUSALS[retried];
    return result;
  }

  /** A task's code and cluster, which never change, so reading them before a script is safe. */
  private async indexedTask(projectId: string, taskId: string): Promise<IndexedTask | null> {
    const [codeId, codeName, cluster] = await this.redis.hmget(
      this.keys.task(projectId, taskId),
      'code_id',
      'code_name',
      'cluster',
    );
    if (!codeId || !codeName || !cluster) return null;
    return { code_id: codeId, code_name: codeName, cluster };
  }

  /**
   * A runner takes a queued task, holding one of its code package's max_concurrency slots
   * for `leaseMs` (renewed by ConcurrencyGate.renew), unless the package's queue is paused.
   */
  async take(
    task: Pick<Task, 'project_id' | 'id'> & IndexedTask,
    runnerId: string,
    leaseMs: number,
  ): Promise<TakeResult> {
    const { project_id: projectId, id, code_id: codeId } = task;
    const now = Date.now();
    const [outcome, previous] = await scripts.takeTask.run<[number, string]>(
      this.redis,
      [
        this.keys.task(projectId, id),
        this.keys.code(projectId, codeId),
        this.keys.concurrencyGate(projectId, codeId),
        this.keys.codePaused(projectId, codeId),
        this.keys.parkedTasks(projectId, codeId),
        ...this.keys.statusGroup(projectId, task, 'queued'),
        ...this.keys.statusGroup(projectId, task, 'preparing'),
        this.keys.projectSuspended(projectId),
        this.keys.queuedPayloads(projectId),
        this.keys.queuedPayloadTotal(projectId),
      ],
      [runnerId, String(now), String(now + leaseMs)],
    );
    return {
      changed: outcome === 1,
      gated: outcome === -1,
      parked: outcome === -2,
      previous: previous as TaskStatus | '',
    };
  }

  /**
   * The runner `runnerId` holding the preparing task is pulling its image (shown `preparing`
   * until the task changes status); whether the task was marked.
   */
  async markPulling(projectId: string, taskId: string, runnerId: string): Promise<ChangeResult> {
    const [marked, current] = await scripts.markPulling.run<[number, string]>(
      this.redis,
      [this.keys.task(projectId, taskId)],
      [runnerId, String(Date.now())],
    );
    return { changed: marked === 1, previous: current as TaskStatus | '' };
  }

  /** Progress of a queued or running task; refused (400) once it has ended. */
  async progress(projectId: string, taskId: string, progress: { percent?: number; msg?: string }): Promise<void> {
    // Only these two: the body a client sent may carry any other key, which must not reach the record.
    const fields = PROGRESS_FIELDS.flatMap((field) =>
      progress[field] === undefined ? [] : [field, String(progress[field])],
    );
    const [changed, current] = await scripts.setProgress.run<[number, string]>(
      this.redis,
      [this.keys.task(projectId, taskId)],
      [String(Date.now()), ...fields],
    );
    if (current === '') throw fail('task_not_found');
    if (changed !== 1) throw fail('task_progress_when_ended', current);
  }

  cancel(projectId: string, taskId: string): Promise<ChangeResult> {
    return this.change(projectId, taskId, {
      from: ['queued', 'preparing', 'running'],
      to: 'cancelled',
      fields: { msg: 'Cancelled' },
      cancel: true,
    });
  }

  /** Appends output to the log; returns the log's size. */
  async appendLog(projectId: string, taskId: string, chunk: Buffer, maxBytes: number): Promise<number> {
    return scripts.appendLog.run<number>(
      this.redis,
      [this.keys.task(projectId, taskId), this.keys.taskLog(projectId, taskId)],
      [chunk, String(maxBytes)],
    );
  }

  /**
   * Appends chunk number `seq` (from 1) of a runner's output while the task runs on `runnerId`
   * (after the end: 409). A chunk sent again is a duplicate; one past a gap (chunks its runner
   * gave up on) is written after a line saying how many are missing.
   */
  async appendLogInOrder(
    projectId: string,
    taskId: string,
    append: { seq: number; chunk: Buffer; runnerId: string },
    maxBytes: number,
  ): Promise<{ size: number; duplicate: boolean }> {
    const [value, outcome] = await scripts.appendLogInOrder.run<[number, string]>(
      this.redis,
      [this.keys.task(projectId, taskId), this.keys.taskLog(projectId, taskId)],
      [append.chunk, String(maxBytes), String(append.seq), append.runnerId],
    );
    if (outcome === 'not-running') throw fail('task_log_not_running', taskId);
    return { size: value, duplicate: outcome === 'duplicate' };
  }
}
