import type { RedisClient } from '../../../core/redis.js';
import type { WorkerKeys } from '../../keys.js';
import type { TaskStore } from '../records/task-store.js';
import type { TaskService } from '../task-service.js';
import type { Task, TaskStatus } from '../../types.js';
import { scripts } from '../scripts.js';
import { QueuedTaskRepair } from './queued-repair.js';

/** Entries handled per script run or read: keeps each step short for other clients. */
const BATCH = 200;

export interface TaskSweeperOptions {
  /** Pages through every project's id. */
  listProjectIds(after: string | undefined, count: number): Promise<string[]>;
  /** A task written this long ago without a confirmed BullMQ job is dispatched by the sweeper. */
  dispatchGraceMs: number;
  /**
   * Ends a preparing or running task whose runner no longer runs it (RunnerTasks.endIfLost);
   * asked for tasks unchanged for `dispatchGraceMs`. Whether it ended the task.
   */
  endIfLost?: (task: Task) => Promise<boolean>;
}

/** An expiring-set member "<id>/<status>/<code id>/<cluster>/<code name>" (the name may hold '/'). */
function expiringEntryOf(member: string) {
  const [id = '', status = '', codeId = '', cluster = '', ...name] = member.split('/');
  return { id, status: status as TaskStatus, indexed: { code_id: codeId, cluster, code_name: name.join('/') } };
}

/**
 * The leader's upkeep of tasks, project by project: drops finished tasks past their retention
 * (record, log and every index entry at once, so lists and stats stay consistent),
 * dispatches tasks whose writer died before adding their BullMQ job, ends runs that no
 * runner runs any more, and gives back the queue room of tasks that left it unreleased.
 */
export class TaskSweeper {
  readonly queuedRepair: QueuedTaskRepair;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
    private readonly store: TaskStore,
    private readonly queueing: TaskService,
    private readonly options: TaskSweeperOptions,
  ) {
    this.queuedRepair = new QueuedTaskRepair(redis, keys);
  }

  async pass(isStopping: () => boolean = () => false): Promise<void> {
    let after: string | undefined;
    for (;;) {
      const projectIds = await this.options.listProjectIds(after, 100);
      for (const projectId of projectIds) {
        if (isStopping()) return;
        await this.expire(projectId, Date.now(), isStopping);
        await this.dispatchLate(projectId);
        await this.endLostRuns(projectId, Date.now());
        await this.queuedRepair.repair(projectId);
      }
      if (projectIds.length < 100) return;
      after = projectIds.at(-1);
    }
  }

  /** Drops the project's finished tasks whose retention ended by `now`; returns how many. */
  async expire(projectId: string, now: number, isStopping: () => boolean = () => false): Promise<number> {
    const expiring = this.keys.expiringTasks(projectId);
    let dropped = 0;
    while (!isStopping()) {
      const members = await this.redis.zrangebyscore(expiring, '-inf', now, 'LIMIT', 0, BATCH);
      if (members.length === 0) break;
      const keys = [expiring];
      for (const member of members) {
        const { id, status, indexed } = expiringEntryOf(member);
        keys.push(
          this.keys.task(projectId, id),
          this.keys.taskLog(projectId, id),
          ...this.keys.anyStatusIndexes(projectId, indexed),
          ...this.keys.statusGroup(projectId, indexed, status),
        );
      }
      dropped += await scripts.expireTasks.run<number>(this.redis, keys, [String(now), ...members]);
      if (members.length < BATCH) break;
    }
    return dropped;
  }

  /**
   * Ends the project's preparing and running tasks that no runner runs any more; returns how
   * many. Such a task has no BullMQ job to bring it back when its runner's last write was lost
   * (a Redis failover keeps only what reached the replica) while the job's end was not.
   */
  async endLostRuns(projectId: string, now: number): Promise<number> {
    const endIfLost = this.options.endIfLost;
    if (!endIfLost) return 0;
    let ended = 0;
    for (const status of ['preparing', 'running'] as const) {
      const index = this.keys.tasksWithStatus(projectId, status);
      for (let start = 0; ; start += BATCH) {
        const ids = await this.redis.zrange(index, start, start + BATCH - 1);
        const tasks = await Promise.all(ids.map((id) => this.store.find(projectId, id)));
        for (const task of tasks)
          if (task && now - task.updated_at > this.options.dispatchGraceMs && (await endIfLost(task))) ended += 1;
        if (ids.length < BATCH) break;
      }
    }
    return ended;
  }

  /** Adds the BullMQ jobs of tasks still queued whose dispatch was never confirmed; returns how many. */
  async dispatchLate(projectId: string): Promise<number> {
    let dispatched = 0;
    for (;;) {
      const ids = await this.store.undispatched(projectId, this.options.dispatchGraceMs, BATCH);
      if (ids.length === 0) break;
      const found = await Promise.all(ids.map((id) => this.store.find(projectId, id)));
      const queued = found.filter((task): task is Task => task?.status === 'queued');
      await this.queueing.dispatch(projectId, queued);
      await this.store.markDispatched(projectId, ids);
      dispatched += queued.length;
      if (ids.length < BATCH) break;
    }
    return dispatched;
  }
}
