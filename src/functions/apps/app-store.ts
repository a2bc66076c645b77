import { claimInIndex, type IndexClaim } from '../../core/bounded-index.js';
import type { RedisClient } from '../../core/redis.js';
import type { CallStore } from '../calls/call-store.js';
import type { FunctionKeys } from '../keys.js';
import type { RouteNotices } from '../routes/route-notices.js';
import { appOf, flatten } from './records.js';
import { scripts, type RecordPatch } from '../scripts.js';
import { splitMapChanges } from './rules.js';
import type { App, ConfigMap } from '../types.js';
import { Removals } from '../../core/removals.js';

/** Whose apps a listing shows: every app (admin tokens) or those of some projects. */
export type AppScope = 'all' | { projectIds: string[] };

export type AppDeletion = 'deleted' | 'missing' | 'has-routes';

/** Apps: global names, each owned by one project, with a config map. */
export class AppStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FunctionKeys,
    private readonly notices: RouteNotices,
    /** Where a deleted app's call records go with it. */
    private readonly calls: CallStore,
  ) {}

  /** Null when the name is taken. */
  async create(name: string, projectId: string, config: ConfigMap): Promise<App | null> {
    const keys = [this.keys.app(name), this.keys.appConfig(name)];
    const now = Date.now();
    const created = await scripts.createApp.run<number>(this.redis, keys, [name, projectId, now, ...flatten(config)]);
    if (created !== 1) return null;
    await this.listed(name, projectId);
    return { name, projectId, config, createdAt: now, updatedAt: now };
  }

  /**
   * Lists a new app in the name indexes ({fn}), after its record (its own tag) was written: a
   * crash in between leaves an app that works but is not listed, never a listed name without one.
   */
  async listed(name: string, projectId: string): Promise<void> {
    await this.redis.multi().zadd(this.keys.apps(), 0, name).zadd(this.keys.projectApps(projectId), 0, name).exec();
  }

  async get(name: string): Promise<App | null> {
    const [hash, config] = await Promise.all([
      this.redis.hgetall(this.keys.app(name)),
      this.redis.hgetall(this.keys.appConfig(name)),
    ]);
    return appOf(hash, config);
  }

  /** Merges `changes` into the config (an empty value removes the key); null when the app is gone. */
  async updateConfig(name: string, changes: ConfigMap): Promise<App | null> {
    const patch: RecordPatch = {
      fields: { updated_at: String(Date.now()) },
      unset: [],
      maps: [splitMapChanges(changes)],
    };
    const updated = await scripts.patchRecord.run<number>(
      this.redis,
      [this.keys.app(name), this.keys.appConfig(name)],
      [JSON.stringify(patch)],
    );
    if (updated !== 1) return null;
    await this.notices.changed();
    return this.get(name);
  }

  /** Deletes an app without routes, then its call records (their bytes given back). */
  async delete(app: App): Promise<AppDeletion> {
    const keys = [this.keys.app(app.name), this.keys.appConfig(app.name), this.keys.routes(app.name)];
    const result = await scripts.deleteApp.run<number>(this.redis, keys, [app.name]);
    if (result === -1) return 'missing';
    if (result === 0) return 'has-routes';
    await this.notices.changed();
    // Unlisted after the record is gone; a listing skips names whose record is missing.
    await new Removals()
      .zrem(this.keys.apps(), app.name)
      .zrem(this.keys.projectApps(app.projectId), app.name)
      .run(this.redis);
    await this.calls.dropApp(app.projectId, app.name);
    return 'deleted';
  }

  /** How many apps the project has. */
  async count(projectId: string): Promise<number> {
    return this.redis.zcard(this.keys.projectApps(projectId));
  }

  /** Lists `name` in the project's app index unless the index holds `maxNames` names (the apps quota). */
  claimName(projectId: string, name: string, maxNames: number): Promise<IndexClaim> {
    return claimInIndex(this.redis, this.keys.projectApps(projectId), name, maxNames);
  }

  /** Takes a claimed name out of the project's app index again, unless the project's app was created meanwhile. */
  async releaseName(projectId: string, name: string): Promise<void> {
    const index = this.keys.projectApps(projectId);
    await this.redis.zrem(index, name);
    if ((await this.redis.hget(this.keys.app(name), 'project_id')) === projectId) await this.redis.zadd(index, 0, name);
  }

  /** How many routes the project's apps have together (read when a route is created). */
  async routeCount(projectId: string): Promise<number> {
    const names = await this.redis.zrange(this.keys.projectApps(projectId), 0, -1);
    const counts = await Promise.all(names.map((name) => this.redis.zcard(this.keys.routes(name))));
    return counts.reduce((sum, count) => sum + count, 0);
  }

  /** Apps in name order after `cursor` (a name), at most `perPage`. */
  async list(scope: AppScope, cursor: string | undefined, perPage: number): Promise<App[]> {
    const from = cursor ? `(${cursor}` : '-';
    const indexes = scope === 'all' ? [this.keys.apps()] : scope.projectIds.map((id) => this.keys.projectApps(id));
    const pages = await Promise.all(
      indexes.map((index) => this.redis.zrangebylex(index, from, '+', 'LIMIT', 0, perPage)),
    );
    const names = [...new Set(pages.flat())].sort().slice(0, perPage);
    const apps = await Promise.all(names.map((name) => this.get(name)));
    // A project's index may list for a moment a name claimed for an app that another project has.
    const inScope = (app: App) => scope === 'all' || scope.projectIds.includes(app.projectId);
    return apps.filter((app): app is App => app !== null && inScope(app));
  }
}
