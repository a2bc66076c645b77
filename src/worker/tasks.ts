import type { EventBus } from '../core/bus.js';
import { badRequest, HttpError, notFound } from '../core/errors.js';
import { newObjectId } from '../core/ids.js';
import type { CodeStore } from './code-store.js';
import type { TaskDistribution } from './distribution.js';
import type { WorkerKeys } from './keys.js';
import type { TaskStatusChanges } from './task-status.js';
import type { TaskStore } from './task-store.js';
import { FINAL_STATUSES, LIMITS, type Code, type Task, type TaskStatus } from './types.js';

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
    requests.forEach((request, i) => checkPayload(request.payload, requests.length > 1 ? `tasks[${i}].payload` : 'payload'));
    const codes = await this.codesByName(projectId, requests.map((request) => request.code_name));
    const now = Date.now();
    const tasks = requests.map((request) => ({ ...newTask(projectId, codes.get(request.code_name)!, request, now), ...linkOf(origin) }));
    await this.store.createQueued(projectId, tasks, origin.retryOf?.id);
    await this.distribution.add(tasks);
    return tasks;
  }

  /** Queues a finished task again as a new task linked both ways with the old one. */
  async retry(old: Task, delay?: number): Promise<Task> {
    if (!FINAL_STATUSES.includes(old.status)) throw badRequest(`Task cannot be retried: it is ${old.status}`);
    const request = { code_name: old.code_name, payload: old.payload, priority: old.priority, cluster: old.cluster, timeout: old.timeout, delay, label: old.label };
    const [task] = await this.queue(old.project_id, [request], { retryOf: old });
    return task!;
  }

  /**
   * The automatic retry of a task that just ended as error or timeout, when the revision it
   * ran allows more retries; null when none is due. Cancelled and complete tasks never retry.
   */
  async retryAfterFailure(task: Task): Promise<Task | null> {
    if (!RETRIED_STATUSES.includes(task.status)) return null;
    const revision = await this.codes.revisionById(task.project_id, task.code_id, task.code_history_id);
    if ((task.retry_count ?? 0) >= (revision?.retries ?? 0)) return null;
    return this.retry(task, revision?.retries_delay ?? 0);
  }

  async cancel(projectId: string, taskId: string): Promise<void> {
    const task = await this.store.get(projectId, taskId);
    const result = await this.statuses.cancel(projectId, taskId);
    if (!result.changed) throw badRequest(`Task cannot be cancelled: it is ${result.previous || 'gone'}`);
    if (result.previous === 'queued') await this.distribution.remove(task.cluster, taskId);
    else await this.bus.publish(this.keys.cancelChannel(), taskId);
  }

  /** Cancels every queued and running task of a code package; returns how many. */
  async cancelAll(projectId: string, codeId: string): Promise<number> {
    const ids = await this.store.idsOfCode(projectId, codeId, ['queued', 'preparing', 'running']);
    let cancelled = 0;
    for (const id of ids) {
      try {
        await this.cancel(projectId, id);
        cancelled++;
      } catch (error) {
        // Ended (or gone) since the index was read: nothing left to cancel.
        if (!(error instanceof HttpError)) throw error;
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
  if (Buffer.byteLength(payload) > LIMITS.payloadBytes) throw badRequest(`${field} must be at most ${LIMITS.payloadBytes} bytes`);
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
