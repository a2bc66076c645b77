import type { EventBus } from '../../core/bus.js';
import { fail, HttpError } from '../../core/errors.js';
import { newObjectId } from '../../core/ids.js';
import { isRedisFull } from '../../core/redis.js';
import type { ClusterAccess } from '../clusters/cluster-access.js';
import type { CodeStore } from '../codes/code-store.js';
import type { TaskDistribution } from './queues/distribution.js';
import type { WorkerKeys } from '../keys.js';
import type { ChangeResult, StatusChange, TaskStatusChanges } from './records/task-status.js';
import type { TaskFilter, TaskStore } from './records/task-store.js';
import { checkPayloads, taskSettings, type TaskRequest } from './task-admission.js';
import type { QueuedTaskRoom } from './queued-room.js';
import type { Code, Task, TaskStatus } from '../types.js';

/** Statuses after which a code package's `retries` apply. */
const RETRIED_STATUSES: readonly TaskStatus[] = ['error', 'timeout'];

/** The project a client queues tasks in, and the user who owns it (whose clusters the tasks may use). */
export interface ProjectRef {
  id: string;
  ownerId: string;
}

/** Where a task comes from when not straight from a client. */
export interface TaskOrigin {
  retryOf?: Task;
  /** A schedule's run: the task gets the id the scheduler claimed the run with. */
  schedule?: { id: string; taskId: string };
}

function linkOf(origin: TaskOrigin): Partial<Task> {
  if (origin.schedule) return { id: origin.schedule.taskId, schedule_id: origin.schedule.id };
  if (!origin.retryOf) return {};
  return { retry_of: origin.retryOf.id, retry_count: (origin.retryOf.retry_count ?? 0) + 1 };
}

export interface TaskServiceDeps {
  codes: CodeStore;
  store: TaskStore;
  statuses: TaskStatusChanges;
  distribution: TaskDistribution;
  clusterAccess: ClusterAccess;
  bus: EventBus;
  keys: WorkerKeys;
  /** The project's room for queued tasks, reserved by every way of queueing one. */
  room: QueuedTaskRoom;
}

/**
 * The tasks of the worker API, one method per thing a client does, and what runners and the
 * scheduler do to them. Queueing writes the record first, then the BullMQ job that points at it.
 */
export class TaskService {
  private readonly codes: CodeStore;
  private readonly store: TaskStore;
  private readonly statuses: TaskStatusChanges;
  private readonly distribution: TaskDistribution;

  constructor(private readonly deps: TaskServiceDeps) {
    this.codes = deps.codes;
    this.store = deps.store;
    this.statuses = deps.statuses;
    this.distribution = deps.distribution;
  }

  /** A client's queue request: to clusters the project's owner may use (checked first), every task or none. */
  async create(project: ProjectRef, requests: TaskRequest[]): Promise<Task[]> {
    const usable = this.deps.clusterAccess.checkUsable(
      project.ownerId,
      requests.map((request) => request.cluster),
    );
    return this.queue(project.id, requests, {}, usable);
  }

  /** A project's tasks matching `filter` (newest first, a page at a time). */
  async list(projectId: string, filter: TaskFilter): Promise<Task[]> {
    if (filter.from !== undefined && filter.to !== undefined && filter.from > filter.to)
      throw fail('task_times_reversed');
    return this.store.list(projectId, filter);
  }

  get(projectId: string, taskId: string): Promise<Task> {
    return this.store.get(projectId, taskId);
  }

  /** The task's log, whole, or from byte `offset` on (a follower passes the bytes it already has). */
  async log(projectId: string, taskId: string, offset?: number): Promise<string | Buffer> {
    if (offset === undefined) return this.store.log(projectId, taskId);
    return this.store.logFrom(projectId, taskId, offset);
  }

  /** What a running task reports of itself: a percentage, a message, or both. */
  async progress(projectId: string, taskId: string, progress: { percent?: number; msg?: string }): Promise<void> {
    if (progress.percent === undefined && progress.msg === undefined) throw fail('task_progress_empty');
    await this.statuses.progress(projectId, taskId, progress);
  }

  /** A client's retry of task `taskId`: see retry(). */
  async retryById(projectId: string, taskId: string, delay?: number): Promise<Task> {
    return this.retry(await this.store.get(projectId, taskId), delay);
  }

  /**
   * Queues every request or none: all are checked before the first is written, and the
   * project's room for them (queued_tasks, stored_bytes) is reserved as they are (403 / 413).
   * `admitted`: a check of the caller's, read from Redis beside the codes and the room (one
   * round trip for all rather than one after another); its refusal comes first all the same.
   */
  async queue(
    projectId: string,
    requests: TaskRequest[],
    origin: TaskOrigin = {},
    admitted: Promise<void> = Promise.resolve(),
  ): Promise<Task[]> {
    const codesRead = this.codesByName(
      projectId,
      requests.map((request) => request.code_name),
    );
    const roomRead = this.deps.room.of(projectId);
    // Awaited below, in order: a read refused while an earlier check refuses is no unhandled rejection.
    for (const read of [codesRead, roomRead]) read.catch(() => {});
    await admitted;
    checkPayloads(requests);
    const codes = await codesRead;
    const now = Date.now();
    const tasks = requests.map((request) => ({
      ...newTask(projectId, codes.get(request.code_name)!, request, now),
      ...linkOf(origin),
    }));
    const room = await roomRead;
    const refused = await this.store.createQueued(projectId, tasks, room, origin.retryOf?.id);
    if (refused) throw this.deps.room.refusal(refused, room.quotas);
    // Stored, so queued: with Redis full since, the task sweeper adds their jobs once it has room
    // (a 507 would have the client post them twice).
    await this.dispatch(projectId, tasks).catch((error: unknown) => {
      if (!isRedisFull(error)) throw error;
    });
    return tasks;
  }

  /**
   * Adds the tasks' BullMQ jobs, then clears their undispatched marks. A crash in between
   * leaves the marks, and the task sweeper dispatches them (job ids are task ids, so twice is once).
   */
  async dispatch(projectId: string, tasks: Task[]): Promise<void> {
    await this.distribution.add(tasks);
    await this.store.markDispatched(
      projectId,
      tasks.map((task) => task.id),
      this.distribution.connection,
    );
  }

  /**
   * Queues a task again as a new task linked both ways with the old one, whatever the old
   * one's state (the original service retried queued and running tasks too).
   */
  async retry(old: Task, delay?: number): Promise<Task> {
    const [task] = await this.queue(old.project_id, [{ ...requestOf(old), delay }], { retryOf: old });
    return task!;
  }

  /**
   * Ends a task with a final status. When it ends as error or timeout and the revision it ran
   * allows more retries, its retry is written in the same script run as the status, so a
   * crash right after cannot lose it, unless the project has no room for it (its message then
   * says so). The task's end time is the retry's creation time, so the retry is due no sooner
   * than retries_delay after its predecessor ended. Returns the change and the retry (null when none).
   */
  async end(task: Task, change: StatusChange): Promise<{ result: ChangeResult; retry: Task | null }> {
    const at = Date.now();
    const retry = await this.retryFor(task, change.to, at);
    const room = retry ? await this.deps.room.of(task.project_id) : undefined;
    const result = await this.statuses.change(task.project_id, task.id, {
      ...change,
      at,
      retry: retry && room ? { task: retry, room } : undefined,
    });
    if (!result.changed || !retry || result.retryRefused) return { result, retry: null };
    await this.dispatch(task.project_id, [retry]);
    return { result, retry };
  }

  /** The automatic retry of a task about to end with `status` at `endedAt`, or null when none is due. */
  async retryFor(task: Task, status: TaskStatus, endedAt = Date.now()): Promise<Task | null> {
    if (!RETRIED_STATUSES.includes(status)) return null;
    const revision = await this.codes.revisionById(task.project_id, task.code_id, task.code_history_id);
    if (!revision || (task.retry_count ?? 0) >= (revision.retries ?? 0)) return null;
    const code = await this.codes.findByName(task.project_id, task.code_name);
    if (!code) return null;
    const request = { ...requestOf(task), delay: revision.retries_delay ?? 0 };
    return { ...newTask(task.project_id, code, request, endedAt), ...linkOf({ retryOf: task }) };
  }

  /**
   * Cancels a task that has not ended; one that has is left as it is (as the original service
   * did, cancelling it again is no error). Returns whether this call cancelled it.
   */
  async cancel(projectId: string, taskId: string): Promise<boolean> {
    const task = await this.store.get(projectId, taskId);
    const result = await this.statuses.cancel(projectId, taskId);
    if (!result.changed) {
      if (result.previous === '') throw fail('task_not_found');
      return false;
    }
    if (result.previous === 'queued') await this.distribution.remove(task.cluster, taskId);
    else await this.deps.bus.publish(this.deps.keys.cancelChannel(), taskId);
    return true;
  }

  /**
   * Cancels every queued and running task of a code package (or only the running ones: those
   * preparing or running); returns how many.
   */
  async cancelAll(projectId: string, codeId: string, which: 'all' | 'running' = 'all'): Promise<number> {
    let cancelled = 0;
    const statuses: TaskStatus[] = which === 'all' ? ['queued', 'preparing', 'running'] : ['preparing', 'running'];
    for await (const ids of this.store.idsOfCode(projectId, codeId, statuses)) {
      for (const id of ids) {
        try {
          if (await this.cancel(projectId, id)) cancelled++;
        } catch (error) {
          // Gone since the index was read: nothing left to cancel.
          if (!(error instanceof HttpError)) throw error;
        }
      }
    }
    return cancelled;
  }

  private async codesByName(projectId: string, names: string[]): Promise<Map<string, Code>> {
    const unique = [...new Set(names)];
    const found = await Promise.all(unique.map((name) => this.codes.findByName(projectId, name)));
    const codes = new Map<string, Code>();
    found.forEach((code, i) => {
      if (!code) throw fail('code_name_not_found', unique[i]!);
      codes.set(unique[i]!, code);
    });
    return codes;
  }
}

/** The request that queues a task like `task` again. */
function requestOf(task: Task): TaskRequest {
  return {
    code_name: task.code_name,
    payload: task.payload,
    priority: task.priority,
    cluster: task.cluster,
    timeout: task.timeout,
    label: task.label,
  };
}

function newTask(projectId: string, code: Code, request: TaskRequest, now: number): Task {
  return {
    id: newObjectId(now),
    project_id: projectId,
    code_id: code.id,
    code_name: code.name,
    code_rev: code.rev,
    code_history_id: code.latest_history_id,
    status: 'queued',
    created_at: now,
    updated_at: now,
    payload: request.payload,
    ...taskSettings(code, request),
    label: request.label,
    log_size: 0,
  };
}
