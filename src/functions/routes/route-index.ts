import { claimInIndex, type IndexClaim } from '../../core/bounded-index.js';
import type { RedisClient } from '../../core/redis.js';
import type { FunctionKeys } from '../keys.js';

/**
 * A project's index of its routes (`<app><path>`: an app name has no `/`, a path starts with
 * one), the count the `routes` quota bounds once the storage flag `route_index` is enabled. A new
 * route is claimed in it (`claimInIndex`) before it is written, so racing creations cannot pass
 * the quota. Releases before the flag do not keep it, so a project's index is built from its
 * apps' route indexes the first time it is needed after the flag is on (by adding only: a claim
 * made meanwhile stays).
 */
export class RouteIndex {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FunctionKeys,
  ) {}

  /** Adds the route unless the project's index holds `maxNames` routes. */
  async claim(projectId: string, app: string, path: string, maxNames: number): Promise<IndexClaim> {
    await this.built(projectId);
    return claimInIndex(this.redis, this.keys.projectRoutes(projectId), app + path, maxNames);
  }

  /** Takes a claimed route out again, unless the project's route was created meanwhile. */
  async release(projectId: string, app: string, path: string): Promise<void> {
    await this.removed(projectId, app, path);
    const [owner, exists] = await Promise.all([
      this.redis.hget(this.keys.app(app), 'project_id'),
      this.redis.exists(this.keys.route(app, path)),
    ]);
    if (owner === projectId && exists === 1) await this.redis.zadd(this.keys.projectRoutes(projectId), 0, app + path);
  }

  /** After a route was deleted. */
  async removed(projectId: string, app: string, path: string): Promise<void> {
    await this.redis.zrem(this.keys.projectRoutes(projectId), app + path);
  }

  /** Builds the project's index from its apps' routes, once. */
  private async built(projectId: string): Promise<void> {
    if ((await this.redis.sismember(this.keys.projectRoutesBuilt(), projectId)) === 1) return;
    const index = this.keys.projectRoutes(projectId);
    for (const app of await this.redis.zrange(this.keys.projectApps(projectId), 0, -1)) {
      if ((await this.redis.hget(this.keys.app(app), 'project_id')) !== projectId) continue;
      const paths = await this.redis.zrange(this.keys.routes(app), 0, -1);
      if (paths.length > 0) await this.redis.zadd(index, ...paths.flatMap((path) => [0, app + path]));
    }
    await this.redis.sadd(this.keys.projectRoutesBuilt(), projectId);
  }
}
