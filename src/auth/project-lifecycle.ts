import type { KeySpace, RedisClient } from '../core/redis.js';
import { unlinkEach } from '../core/scan.js';
import { scripts } from './scripts.js';
import { FunctionKeys } from '../functions/keys.js';
import type { RouteNotices } from '../functions/routes/route-notices.js';
import { WorkerKeys } from '../worker/keys.js';
import { ScheduleKeys } from '../worker/schedules/scripts.js';

/** Members read per step when walking a project's sets: every step stays short. */
export const WALK_BATCH = 500;

/** Walks a sorted set with ZSCAN, a bounded batch of members at a time. */
export async function* zsetMembers(redis: RedisClient, key: string): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, flat] = await redis.zscan(key, cursor, 'COUNT', WALK_BATCH);
    cursor = next;
    const members: string[] = [];
    for (let i = 0; i < flat.length; i += 2) members.push(flat[i]!);
    if (members.length > 0) yield members;
  } while (cursor !== '0');
}

/**
 * Suspension and deletion of projects as the other services see them. A suspended project (or
 * one whose owner is suspended) carries flags, one per hash tag family, that the scripts
 * starting work read atomically: take-task (tasks are set aside), claim-schedule-run (runs are
 * skipped) and start-call (calls end as errors). The end of a suspension and a deletion leave
 * work for the project janitor (a leader loop): stop the running tasks of a project just
 * suspended, queue the set-aside tasks again, purge the
 * project's data in bounded steps. A deleted project's id is kept as a tombstone, never reused.
 */
export class ProjectLifecycle {
  readonly worker: WorkerKeys;
  readonly schedules: ScheduleKeys;
  readonly functions: FunctionKeys;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
    /** Route caches keep whether an app is suspended: they hear of every change. */
    private readonly routeNotices: RouteNotices,
  ) {
    this.worker = new WorkerKeys(keys);
    this.schedules = new ScheduleKeys(keys);
    this.functions = new FunctionKeys(keys);
  }

  /** Zset of projects whose suspension ended, scored by when: their set-aside tasks wait to be queued again. */
  resumedKey(): string {
    return this.keys.of('{auth}', 'projects-resumed');
  }
  /** Zset of projects just suspended, scored by when: their running tasks wait to be stopped. */
  suspendedKey(): string {
    return this.keys.of('{auth}', 'projects-suspended');
  }
  /** Zset of deleted projects whose data is still to be purged, scored by deletion time. */
  purgeKey(): string {
    return this.keys.of('{auth}', 'projects-purge');
  }
  /** Zset of every deleted project id, scored by deletion time: ids that are never used again. */
  tombstonesKey(): string {
    return this.keys.of('{auth}', 'projects-deleted');
  }

  async isTombstoned(projectId: string): Promise<boolean> {
    return (await this.redis.zscore(this.tombstonesKey(), projectId)) !== null;
  }

  /** Sets (or clears) every suspension flag of the project. */
  async setSuspended(projectId: string, suspended: boolean): Promise<void> {
    const flags = [this.worker.projectSuspended(projectId), this.schedules.projectSuspended(projectId)];
    for await (const apps of zsetMembers(this.redis, this.functions.projectApps(projectId)))
      flags.push(...apps.map((app) => this.functions.appSuspended(app)));
    for (let i = 0; i < flags.length; i += WALK_BATCH) {
      const batch = flags.slice(i, i + WALK_BATCH);
      if (suspended) await Promise.all(batch.map((flag) => scripts.setSuspensionFlag.run(this.redis, [flag])));
      else await unlinkEach(this.redis, batch);
    }
    // A suspended project's hot containers stop too.
    await this.routeNotices.changed(suspended ? { project: projectId } : undefined);
    await scripts.markProject.run(
      this.redis,
      [suspended ? this.suspendedKey() : this.resumedKey()],
      [projectId, Date.now()],
    );
  }

  /** A new app of a suspended project starts suspended too. */
  async appCreated(projectId: string, app: string): Promise<void> {
    if ((await this.redis.exists(this.worker.projectSuspended(projectId))) === 1)
      await this.redis.set(this.functions.appSuspended(app), '1');
  }

  async isSuspended(projectId: string): Promise<boolean> {
    return (await this.redis.exists(this.worker.projectSuspended(projectId))) === 1;
  }

  /** Records a deletion: the id becomes a tombstone and the project's data is queued for purging. */
  async deleted(projectId: string): Promise<void> {
    const now = Date.now();
    await scripts.markProject.run(this.redis, [this.tombstonesKey(), this.purgeKey()], [projectId, now]);
    await this.routeNotices.changed({ project: projectId });
  }
}
