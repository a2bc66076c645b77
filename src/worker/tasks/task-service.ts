import type { EventBus } from '../../core/bus.js';
import { badRequest, HttpError, notFound } from '../../core/errors.js';
import { newObjectId } from '../../core/ids.js';
import type { CodeStore } from '../codes/code-store.js';
import type { TaskDistribution } from './queues/distribution.js';
import type { WorkerKeys } from '../keys.js';
import type { ChangeResult, StatusChange, TaskStatusChanges } from './records/task-status.js';
import type { TaskStore } from './records/task-store.js';
import { LIMITS, type Code, type Task, type TaskStatus } from '../types.js';

/** Statuses after which a code package's `retries` apply. */
const RETRIED_STATUSES: readonly TaskStatus[] = ['error', 'timeout'];

/** One element of a queue request, already checked against the API's schema. */
export interface TaskRequest {
  code_name: string;
  payload: string;
  priority?: number;
  cluster?: string;
  timeout?: number;
  delay?: number;
  label?: string;
}

export const DEFAULT_CLUSTER = 'default';

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

/** Queueing and cancelling tasks: the record first, then the BullMQ job that points at it. */
export class TaskService {
  constructor(
    private readonly codes: CodeStore,
    private readonly store: TaskStore,
    private readonly statuses: TaskStatusChanges,
    private readonly distribution: TaskDistribution,
    private readonly bus: EventBus,
    private readonly keys: WorkerKeys,
  ) {}

  /** Queues every request or none: all are checked before the first is written. */
  async queue(projectId: string, requests: TaskRequest[], origin: TaskOrigin = {}): Promise<Task[]> {
    requests.forEach((request, i) =>
      checkPayload(request.payload, requests.length > 1 ? `tasks[${i}].payload` : 'payload'),
    );
    const codes = await this.codesByName(
      projectId,
      requests.map((request) => request.code_name),
    );
    const now = Date.now();
    const tasks = requests.map((request) => ({
      ...newTask(projectId, codes.get(request.code_name)!, request, now),
      ...linkOf(origin),
    }));
    await this.store.createQueued(projectId, tasks, origin.retryOf?.id);
    await this.dispatch(projectId, tasks);
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
   * crash right after cannot lose it. Returns the change and the retry (null when none).
   */
  async end(task: Task, change: StatusChange): Promise<{ result: ChangeResult; retry: Task | null }> {
    const retry = await this.retryFor(task, change.to);
    const result = await this.statuses.change(task.project_id, task.id, { ...change, retry: retry ?? undefined });
    if (!result.changed || !retry) return { result, retry: null };
    await this.dispatch(task.project_id, [retry]);
    return { result, retry };
  }

  /** The automatic retry of a task about to end with `status`, or null when none is due. */
  async retryFor(task: Task, status: TaskStatus): Promise<Task | null> {
    if (!RETRIED_STATUSES.includes(status)) return null;
    const revision = await this.codes.revisionById(task.project_id, task.code_id, task.code_history_id);
    if (!revision || (task.retry_count ?? 0) >= (revision.retries ?? 0)) return null;
    const code = await this.codes.findByName(task.project_id, task.code_name);
    if (!code) return null;
    const request = { ...requestOf(task), delay: revision.retries_delay ?? 0 };
    return { ...newTask(task.project_id, code, request, Date.now()), ...linkOf({ retryOf: task }) };
  }

  /**
   * Cancels a task that has not ended; one that has is left as it is (as the original service
   * did, cancelling it again is no error). Returns whether this call cancelled it.
   */
  async cancel(projectId: string, taskId: string): Promise<boolean> {
    const task = await this.store.get(projectId, taskId);
    const result = await this.statuses.cancel(projectId, taskId);
    if (!result.changed) {
      if (result.previous === '') throw notFound('Task not found');
      return false;
    }
    if (result.previous === 'queued') await this.distribution.remove(task.cluster, taskId);
    else await this.bus.publish(this.keys.cancelChannel(), taskId);
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
      if (!code) throw notFound(`Code package not found: ${unique[i]}`);
      codes.set(unique[i]!, code);
    });
    return codes;
  }
}

export function checkPayload(payload: string, field = 'payload'): void {
  if (Buffer.byteLength(payload) > LIMITS.payloadBytes)
    throw badRequest(`${field} must be at most ${LIMITS.payloadBytes} bytes`);
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
    priority: request.priority ?? code.priority ?? 0,
    timeout: request.timeout ?? LIMITS.maxTimeout,
    delay: request.delay ?? 0,
    cluster: request.cluster ?? DEFAULT_CLUSTER,
    label: request.label,
    log_size: 0,
  };
}
