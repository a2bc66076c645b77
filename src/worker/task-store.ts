import type { Redis } from 'ioredis';
import { notFound } from '../core/errors.js';
import { loadLua } from '../core/lua.js';
import type { WorkerKeys } from './keys.js';
import { TASK_STATUSES, type Task, type TaskStatus } from './types.js';

const createTasks = loadLua(import.meta.url, 'create-tasks');
/** Tasks per script run: keeps one run short so other clients are not held up. */
const CREATE_CHUNK = 200;

const NUMBER_FIELDS = new Set([
  'code_rev', 'created_at', 'updated_at', 'priority', 'timeout', 'delay', 'start_time', 'end_time', 'duration', 'log_size', 'retry_count', 'percent',
]);

/** A task hash (all strings) back into a record. */
export function taskFromHash(hash: Record<string, string>): Task | null {
  if (!hash.id) return null;
  const task: Record<string, string | number> = {};
  for (const [field, value] of Object.entries(hash)) task[field] = NUMBER_FIELDS.has(field) ? Number(value) : value;
  return task as unknown as Task;
}

function hashOf(task: Task): string[] {
  const pairs: string[] = [];
  for (const [field, value] of Object.entries(task)) if (value !== undefined) pairs.push(field, String(value));
  return pairs;
}

export interface TaskFilter {
  codeName?: string;
  statuses: TaskStatus[];
  cluster?: string;
  /** Epoch ms bounds on created_at. */
  from?: number;
  to?: number;
  page: number;
  perPage: number;
}

const SCAN_CHUNK = 500;

/** Task records and their indexes (all tasks, per code, per status; scored by created_at). */
export class TaskStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: WorkerKeys,
  ) {}

  /**
   * Writes queued tasks of one project, a chunk per script run. `retriedTaskId`: the task
   * the (single) new task retries; it gets a link to the new one in the same script run.
   */
  async createQueued(projectId: string, tasks: Task[], retriedTaskId?: string): Promise<void> {
    const runs: Promise<unknown>[] = [];
    for (let start = 0; start < tasks.length; start += CREATE_CHUNK) {
      const keys = [this.keys.taskIndex(projectId), this.keys.tasksWithStatus(projectId, 'queued')];
      const args: string[] = [];
      for (const task of tasks.slice(start, start + CREATE_CHUNK)) {
        const fields = hashOf(task);
        keys.push(this.keys.task(projectId, task.id), this.keys.tasksOfCode(projectId, task.code_name), this.keys.codeTasksWithStatus(projectId, task.code_id, 'queued'));
        args.push(task.id, String(task.created_at), String(fields.length), ...fields);
      }
      if (retriedTaskId) keys.push(this.keys.task(projectId, retriedTaskId));
      runs.push(createTasks.run(this.redis, keys, args));
    }
    await Promise.all(runs);
    await this.redis.hincrby(this.keys.projectCounters(projectId), 'task_count', tasks.length);
  }

  async find(projectId: string, taskId: string): Promise<Task | null> {
    return taskFromHash(await this.redis.hgetall(this.keys.task(projectId, taskId)));
  }

  async get(projectId: string, taskId: string): Promise<Task> {
    const task = await this.find(projectId, taskId);
    if (!task) throw notFound('Task not found');
    return task;
  }

  /** Ids of a code package's tasks now in one of `statuses`, from its per-status indexes. */
  async idsOfCode(projectId: string, codeId: string, statuses: TaskStatus[]): Promise<string[]> {
    const lists = await Promise.all(statuses.map((status) => this.redis.zrange(this.keys.codeTasksWithStatus(projectId, codeId, status), 0, -1)));
    return lists.flat();
  }

  async log(projectId: string, taskId: string): Promise<string> {
    await this.get(projectId, taskId);
    return (await this.redis.get(this.keys.taskLog(projectId, taskId))) ?? '';
  }

  /** Newest first. Reads the narrowest index, then filters the rest in chunks. */
  async list(projectId: string, filter: TaskFilter): Promise<Task[]> {
    const source = this.sourceIndex(projectId, filter);
    const wanted = (filter.page + 1) * filter.perPage;
    const max = filter.to === undefined ? '+inf' : String(filter.to);
    const min = filter.from === undefined ? '-inf' : String(filter.from);
    const matches: Task[] = [];
    for (let offset = 0; matches.length < wanted; offset += SCAN_CHUNK) {
      const ids = await this.redis.zrevrangebyscore(source, max, min, 'LIMIT', offset, SCAN_CHUNK);
      const tasks = await Promise.all(ids.map((id) => this.find(projectId, id)));
      for (const task of tasks) if (task && this.matches(task, filter)) matches.push(task);
      if (ids.length < SCAN_CHUNK) break;
    }
    return matches.slice(filter.page * filter.perPage, wanted);
  }

  private sourceIndex(projectId: string, filter: TaskFilter): string {
    if (filter.codeName !== undefined) return this.keys.tasksOfCode(projectId, filter.codeName);
    if (filter.statuses.length === 1) return this.keys.tasksWithStatus(projectId, filter.statuses[0]!);
    return this.keys.taskIndex(projectId);
  }

  private matches(task: Task, filter: TaskFilter): boolean {
    if (filter.codeName !== undefined && task.code_name !== filter.codeName) return false;
    if (filter.statuses.length > 0 && filter.statuses.length < TASK_STATUSES.length && !filter.statuses.includes(task.status)) return false;
    if (filter.cluster !== undefined && task.cluster !== filter.cluster) return false;
    return true;
  }
}
