import type { RedisClient } from '../../src/core/redis.js';
import { scanKeys, unlinkEach } from '../../src/core/scan.js';
import type { AppContext } from '../../api/context.js';
import { projectCountersKey, projectSchedulesCountKey } from '../../src/auth/project-counters.js';
import { type ProjectLifecycle, WALK_BATCH, zsetMembers } from '../../src/auth/project-lifecycle.js';
import { CacheKeys } from '../../src/cache/keys.js';
import type { MessageQueue } from '../../src/mq/message-queue.js';
import { dueMember } from '../../src/worker/schedules/scripts.js';
import type { WorkerServices } from '../../src/worker/services.js';
import type { LeaderWork, LoopEnv } from '../loop-runner.js';

/** Projects handled per pass (each in bounded steps); the rest wait for the next pass. */
const PROJECTS_PER_PASS = 10;

/** Unlinks every key matching `pattern`, SCAN step by SCAN step (UNLINK frees big values off the main thread). */
async function unlinkMatching(redis: RedisClient, pattern: string, isStopping: () => boolean): Promise<void> {
  for await (const keys of scanKeys(redis, pattern, 1000, isStopping)) {
    for (let i = 0; i < keys.length; i += WALK_BATCH) await unlinkEach(redis, keys.slice(i, i + WALK_BATCH));
  }
}

/**
 * The background half of suspension and deletion (see ProjectLifecycle), on the leader:
 * cancels the running tasks of projects just suspended, queues again the tasks set aside while a project was suspended, and purges deleted projects —
 * their tasks (cancelled first), logs, codes, schedules, queues and messages, caches, apps,
 * routes and calls — one bounded Redis command at a time.
 */
export class ProjectJanitor {
  private readonly lifecycle: ProjectLifecycle;
  private readonly cacheKeys: CacheKeys;

  constructor(
    private readonly ctx: AppContext,
    private readonly worker: WorkerServices,
    private readonly mq: MessageQueue,
  ) {
    this.lifecycle = ctx.lifecycle;
    this.cacheKeys = new CacheKeys(ctx.keys);
  }

  async pass(isStopping: () => boolean = () => false): Promise<void> {
    const { redis } = this.ctx;
    for (const projectId of await redis.zrange(this.lifecycle.suspendedKey(), 0, PROJECTS_PER_PASS - 1)) {
      if (isStopping()) return;
      if (await this.lifecycle.isSuspended(projectId)) await this.stopRunning(projectId);
      await redis.zrem(this.lifecycle.suspendedKey(), projectId);
    }
    for (const projectId of await redis.zrange(this.lifecycle.resumedKey(), 0, PROJECTS_PER_PASS - 1)) {
      if (isStopping()) return;
      if (!(await this.lifecycle.isSuspended(projectId))) await this.requeue(projectId);
      await redis.zrem(this.lifecycle.resumedKey(), projectId);
    }
    for (const projectId of await redis.zrange(this.lifecycle.purgeKey(), 0, PROJECTS_PER_PASS - 1)) {
      if (isStopping()) return;
      await this.purge(projectId, isStopping);
      if (!isStopping()) await redis.zrem(this.lifecycle.purgeKey(), projectId);
    }
  }

  /** A suspended project's running tasks are cancelled (their runners stop them), as a deletion's are. */
  private async stopRunning(projectId: string): Promise<void> {
    for await (const codeIds of zsetMembers(this.ctx.redis, this.worker.keys.codeIndex(projectId)))
      for (const codeId of codeIds) await this.worker.tasks.cancelAll(projectId, codeId, 'running');
  }

  private async requeue(projectId: string): Promise<void> {
    for await (const codeIds of zsetMembers(this.ctx.redis, this.worker.keys.codeIndex(projectId)))
      for (const codeId of codeIds) await this.worker.pause.requeueParked(projectId, codeId);
  }

  /** Removes everything of a deleted project; safe to run again after an interruption. */
  async purge(projectId: string, isStopping: () => boolean = () => false): Promise<void> {
    const { redis, keys } = this.ctx;
    const prefix = keys.prefix;
    const { worker } = this;
    // Work first: running tasks are told to stop, queued ones leave BullMQ.
    for await (const codeIds of zsetMembers(redis, worker.keys.codeIndex(projectId)))
      for (const codeId of codeIds) await worker.tasks.cancelAll(projectId, codeId);
    const schedules = this.lifecycle.schedules;
    for await (const ids of zsetMembers(redis, schedules.projectIndex(projectId))) {
      await redis.zrem(schedules.due(), ...ids.map((id) => dueMember(projectId, id)));
      await redis.unlink(...ids.map((id) => schedules.schedule(projectId, id)));
    }
    await redis.unlink(schedules.projectIndex(projectId), schedules.projectSuspended(projectId));
    for await (const names of zsetMembers(redis, this.mq.keys.queueIndex(projectId)))
      for (const name of names) await this.mq.queues.delete({ projectId, name });
    const fn = this.lifecycle.functions;
    for await (const apps of zsetMembers(redis, fn.projectApps(projectId))) {
      for (const app of apps) {
        for await (const paths of zsetMembers(redis, fn.routes(app)))
          await redis.unlink(
            ...paths.flatMap((path) => [fn.route(app, path), fn.routeConfig(app, path), fn.routeHeaders(app, path)]),
          );
        await redis.unlink(fn.routes(app), fn.app(app), fn.appConfig(app));
        await redis.zrem(fn.apps(), app);
        await unlinkMatching(redis, `${prefix}{fn-calls:${app}}:*`, isStopping);
      }
    }
    await unlinkEach(redis, [
      fn.projectApps(projectId),
      fn.projectRoutes(projectId),
      fn.projectHotContainers(projectId),
      fn.queuedCalls(projectId),
    ]);
    await redis.srem(fn.projectRoutesBuilt(), projectId);
    // Its apps are gone, their suspension flags too: no cached route may still serve them.
    await this.ctx.functions.notices.changed();
    await redis.srem(this.cacheKeys.sweptProjects(), projectId);
    for (const pattern of [
      `{w:${projectId}}:*`,
      `{mq:${projectId}:*`,
      `{mq:${projectId}}:*`,
      `{cache:${projectId}}:*`,
      `{fn-p:${projectId}}:*`,
    ])
      await unlinkMatching(redis, prefix + pattern, isStopping);
    await unlinkMatching(redis, `${prefix}history:${projectId}:*`, isStopping);
    await unlinkEach(redis, [projectCountersKey(keys, projectId), projectSchedulesCountKey(keys, projectId)]);
  }
}

/** The loop table's project-janitor pass, every FERRUM_PROJECT_JANITOR_MS. */
export function projectJanitorWork({ ctx }: LoopEnv): LeaderWork {
  const janitor = new ProjectJanitor(ctx, ctx.worker, ctx.mq);
  return { pass: (isStopping) => janitor.pass(isStopping) };
}
