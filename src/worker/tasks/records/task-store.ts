import type { RedisClient } from '../../../core/redis.js';
import { fail } from '../../../core/errors.js';
import type { WorkerKeys } from '../../keys.js';
import { TASK_STATUSES, type Task, type TaskStatus } from '../../types.js';
import { scripts } from '../scripts.js';

/** Tasks per script run: keeps one run short so other clients are not held up. */
const CREATE_CHUNK = 200;
const SCAN_BATCH = 500;

const NUMBER_FIELDS = new Set([
  'code_rev',
  'created_at',
  'updated_at',
  'priority',
  'timeout',
  'delay',
  'start_time',
  'end_time',
  'duration',
  'log_size',
  'retry_count',
  'percent',
  'pulling_at',
]);

/** Which task of which project. */
export interface TaskRef {
  project_id: string;
  task_id: string;
}

/** Who runs a task, and how far it is. */
export interface TaskRunState {
  status: TaskStatus;
  runner: string;
}

/** A task hash (all strings) back into a record. */
export function taskFromHash(hash: Record<string, string>): Task | null {
  if (!hash.id) return null;
  const task: Record<string, string | number> = {};
  for (const [field, value] of Object.entries(hash)) task[field] = NUMBER_FIELDS.has(field) ? Number(value) : value;
  return task as unknown as Task;
}

export function hashOf(task: Task): string[] {
  const pairs: string[] = [];
  for (const [field, value] of Object.entries(task)) if (value !== undefined) pairs.push(field, String(value));
  return pairs;
}

/** The room a project has for queued tasks: at most `most` of them, payloads of at most `allowance` bytes. */
export interface QueuedRoom {
  most: number;
  allowance: number;
}

/** What refused a queue request, by create-tasks.lua's and set-task-status.lua's codes. */
export type QueuedRefusal = 'queued_tasks' | 'stored_bytes';
export const QUEUED_REFUSALS: Record<number, QueuedRefusal> = { [-1]: 'queued_tasks', [-2]: 'stored_bytes' };

/** The bytes a task counts toward stored_bytes while it is queued: its payload's. */
export function queuedBytes(task: Pick<Task, 'payload'>): number {
  return Buffer.byteLength(task.payload);
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

/** The script arguments that write a new task: id, created_at, n, then n field/value arguments. */
export function creationArgs(task: Task): string[] {
  const fields = hashOf(task);
  return [task.id, String(task.created_at), String(fields.length), ...fields];
}

/**
 * The fields (as field/value arguments) every task of `tasks` has with one value, and each
 * task's others: a request's tasks mostly differ in id and payload alone, so create-tasks.lua
 * gets the rest once per run.
 */
function splitSharedFields(tasks: Task[]): { shared: string[]; own: string[][] } {
  const [first, ...others] = tasks as [Task, ...Task[]];
  const sharedFields = new Set<string>();
  for (const [field, value] of Object.entries(first)) {
    if (value !== undefined && others.every((task) => (task as unknown as Record<string, unknown>)[field] === value))
      sharedFields.add(field);
  }
  const shared: string[] = [];
  for (const field of sharedFields) shared.push(field, String((first as unknown as Record<string, unknown>)[field]));
  const own = tasks.map((task) => {
    const pairs: string[] = [];
    for (const [field, value] of Object.entries(task))
      if (value !== undefined && !sharedFields.has(field)) pairs.push(field, String(value));
    return pairs;
  });
  return { shared, own };
}

/**
 * Task records and their list indexes: one per combination of code name, cluster and status
 * (each optional), scored by created_at, so every list filter reads its indexes directly.
 */
export class TaskStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
  ) {}

  /**
   * Writes queued tasks of one project, a chunk per script run, unless `room` has no place for
   * every one of them (the first run reserves it for all, or refuses: nothing is written then).
   * `retriedTaskId`: the task the (single) new task retries; it gets a link to the new one in
   * the same script run. Returns the refusal, or null when written.
   */
  async createQueued(
    projectId: string,
    tasks: Task[],
    room: QueuedRoom,
    retriedTaskId?: string,
  ): Promise<QueuedRefusal | null> {
    const reservation = tasks.flatMap((task) => [task.id, String(queuedBytes(task))]);
    const first = await this.createChunk(projectId, tasks.slice(0, CREATE_CHUNK), retriedTaskId, [
      String(room.most),
      String(room.allowance),
      String(reservation.length),
      ...reservation,
    ]);
    if (first < 0) return QUEUED_REFUSALS[first]!;
    const runs: Promise<unknown>[] = [];
    for (let start = CREATE_CHUNK; start < tasks.length; start += CREATE_CHUNK)
      runs.push(this.createChunk(projectId, tasks.slice(start, start + CREATE_CHUNK), undefined, ['', '', '0']));
    await Promise.all(runs);
    return null;
  }

  private async createChunk(
    projectId: string,
    chunk: Task[],
    retriedTaskId: string | undefined,
    reservation: string[],
  ): Promise<number> {
    const keys = [
      this.keys.undispatchedTasks(projectId),
      this.keys.projectCounters(projectId),
      this.keys.queuedPayloads(projectId),
      this.keys.queuedPayloadTotal(projectId),
    ];
    const { shared, own } = splitSharedFields(chunk);
    const args = [String(Date.now()), String(chunk.length), ...reservation, String(shared.length), ...shared];
    const indexSets = new Map<string, number>();
    const indexKeys: string[] = [];
    chunk.forEach((task, i) => {
      keys.push(this.keys.task(projectId, task.id));
      const scope = `${task.code_id}\n${task.code_name}\n${task.cluster}`;
      let set = indexSets.get(scope);
      if (set === undefined) {
        set = indexSets.size + 1;
        indexSets.set(scope, set);
        indexKeys.push(...this.keys.statusGroup(projectId, task, 'queued'));
      }
      const fields = own[i]!;
      args.push(task.id, String(task.created_at), String(set), String(fields.length), ...fields);
    });
    keys.push(...indexKeys);
    if (retriedTaskId) keys.push(this.keys.task(projectId, retriedTaskId));
    return scripts.createTasks.run<number>(this.redis, keys, args);
  }

  /**
   * The tasks' BullMQ jobs exist: they no longer wait in the undispatched set. `via` is the
   * connection that added the jobs: one connection's commands reach one server in order, so
   * a failover cannot keep the mark's removal while losing the jobs it confirms.
   */
  async markDispatched(projectId: string, taskIds: string[], via: RedisClient = this.redis): Promise<void> {
    if (taskIds.length > 0) await via.zrem(this.keys.undispatchedTasks(projectId), ...taskIds);
  }

  /** Ids of tasks written more than `olderThanMs` ago whose dispatch was not confirmed, oldest first. */
  async undispatched(projectId: string, olderThanMs: number, count: number): Promise<string[]> {
    return this.redis.zrangebyscore(
      this.keys.undispatchedTasks(projectId),
      '-inf',
      Date.now() - olderThanMs,
      'LIMIT',
      0,
      count,
    );
  }

  async find(projectId: string, taskId: string): Promise<Task | null> {
    return taskFromHash(await this.redis.hgetall(this.keys.task(projectId, taskId)));
  }

  /**
   * The status and runner of each task (null for one gone), in one round trip: the reads are
   * sent together (auto-pipelined), one per task, as tasks of many projects may be asked for.
   */
  async runStates(refs: TaskRef[]): Promise<(TaskRunState | null)[]> {
    const replies = await Promise.all(
      refs.map((ref) => this.redis.hmget(this.keys.task(ref.project_id, ref.task_id), 'status', 'runner')),
    );
    return replies.map(([status, runner]) => (status ? { status: status as TaskStatus, runner: runner ?? '' } : null));
  }

  async get(projectId: string, taskId: string): Promise<Task> {
    const task = await this.find(projectId, taskId);
    if (!task) throw fail('task_not_found');
    return task;
  }

  /**
   * Ids of a code package's tasks in one of `statuses`, from its per-status indexes, a bounded
   * batch at a time (ZSCAN: a task there through the whole walk is seen at least once).
   */
  async *idsOfCode(projectId: string, codeId: string, statuses: TaskStatus[]): AsyncGenerator<string[]> {
    for (const status of statuses) {
      const key = this.keys.codeTasksWithStatus(projectId, codeId, status);
      let cursor = '0';
      do {
        const [next, flat] = await this.redis.zscan(key, cursor, 'COUNT', SCAN_BATCH);
        cursor = next;
        const ids: string[] = [];
        for (let i = 0; i < flat.length; i += 2) ids.push(flat[i]!);
        if (ids.length > 0) yield ids;
      } while (cursor !== '0');
    }
  }

  async log(projectId: string, taskId: string): Promise<string> {
    await this.get(projectId, taskId);
    return (await this.redis.get(this.keys.taskLog(projectId, taskId))) ?? '';
  }

  /** The log's bytes from `offset` on (empty past its end), so a follower fetches only what is new. */
  async logFrom(projectId: string, taskId: string, offset: number): Promise<Buffer> {
    await this.get(projectId, taskId);
    return this.redis.getrangeBuffer(this.keys.taskLog(projectId, taskId), offset, -1);
  }

  /** Newest first: one page of the indexes the filter names, one per status asked for (every status when none is). */
  async list(projectId: string, filter: TaskFilter): Promise<Task[]> {
    const statuses = filter.statuses.length === 0 ? TASK_STATUSES : filter.statuses;
    const keys = statuses.map((status) =>
      this.keys.taskListIndex(projectId, { codeName: filter.codeName, cluster: filter.cluster, status }),
    );
    const min = filter.from === undefined ? '-inf' : String(filter.from);
    const max = filter.to === undefined ? '+inf' : String(filter.to);
    const ids = await scripts.listTasks.run<string[]>(this.redis, keys, [
      min,
      max,
      String(filter.page * filter.perPage),
      String(filter.perPage),
    ]);
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.task(projectId, id));
    const hashes = (await pipeline.exec()) ?? [];
    const tasks: Task[] = [];
    for (const [error, hash] of hashes) {
      if (error) throw error;
      // A record that expired since the index was read is simply left out.
      const task = taskFromHash(hash as Record<string, string>);
      if (task) tasks.push(task);
    }
    return tasks;
  }
}
