import type { RedisClient } from '../../core/redis.js';
import type { AppStore } from '../apps/app-store.js';
import type { RouteNotices } from './route-notices.js';
import type { RouteIndex } from './route-index.js';
import type { HotContainerRoom } from './hot-containers.js';
import type { FunctionKeys } from '../keys.js';
import { appOf, mapOf, routeFieldsOf, routeOf } from '../apps/records.js';
import { scripts, type RecordPatch } from '../scripts.js';
import { splitMapChanges } from '../apps/rules.js';
import type { ConfigMap, LoadedRoute, Route, RouteSettings } from '../types.js';

/** An app and one of its routes; null where missing. */
export interface LoadedRouteResult {
  app: LoadedRoute['app'] | null;
  route: Route | null;
}

export type RouteCreation = 'created' | 'exists' | 'app-of-another-project';

/** What an update changes: settings given replace the stored ones; config and headers merge. */
export type RouteChanges = Partial<Omit<RouteSettings, 'config' | 'headers'>> & {
  config?: ConfigMap;
  headers?: ConfigMap;
};

/** Routes of apps: a path mapped to an image and how to run it. */
export class RouteStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FunctionKeys,
    private readonly apps: AppStore,
    private readonly notices: RouteNotices,
    /** Where a deleted route is taken out of its project's route index. */
    private readonly index: RouteIndex,
    /** Where a deleted route gives back its hot containers. */
    private readonly hotContainers: HotContainerRoom,
  ) {}

  private routeKeys(app: string, path: string): string[] {
    return [this.keys.route(app, path), this.keys.routeConfig(app, path), this.keys.routeHeaders(app, path)];
  }

  /** Creates the route, and its app (owned by `projectId`) when the app does not exist. */
  async create(projectId: string, route: Route): Promise<RouteCreation> {
    const keys = [
      this.keys.app(route.appName),
      this.keys.routes(route.appName),
      ...this.routeKeys(route.appName, route.path),
    ];
    const body = JSON.stringify({ fields: routeFieldsOf(route), config: route.config, headers: route.headers });
    const result = await scripts.createRoute.run<number>(this.redis, keys, [
      route.appName,
      projectId,
      route.createdAt,
      route.path,
      body,
    ]);
    if (result === -2) return 'app-of-another-project';
    if (result === -1) return 'exists';
    if (result === 2) await this.apps.listed(route.appName, projectId);
    return 'created';
  }

  /** The app and one of its routes in one round trip (every call needs them: see RouteCache). */
  async loadRoute(appName: string, path: string): Promise<LoadedRouteResult> {
    const keys = [this.keys.app(appName), this.keys.appConfig(appName), ...this.routeKeys(appName, path)];
    const [app, appConfig, route, routeConfig, headers] = await scripts.loadRoute.run<string[][]>(this.redis, keys);
    return {
      app: appOf(mapOf(app!), mapOf(appConfig!)),
      route: routeOf(mapOf(route!), mapOf(routeConfig!), mapOf(headers!)),
    };
  }

  /** Whether the app's project (or its owner) is suspended: its calls are refused. */
  async isSuspended(appName: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.appSuspended(appName))) === 1;
  }

  async get(appName: string, path: string): Promise<Route | null> {
    return (await this.loadRoute(appName, path)).route;
  }

  /** Null when the route does not exist. */
  async update(appName: string, path: string, changes: RouteChanges): Promise<Route | null> {
    const { config, headers, secret, ...settings } = changes;
    const patch: RecordPatch = {
      fields: routeFieldsOf({ ...settings, secret: secret || undefined, updatedAt: Date.now() }),
      unset: secret === null || secret === '' ? ['secret'] : [],
      maps: [splitMapChanges(config ?? {}), splitMapChanges(headers ?? {})],
    };
    const updated = await scripts.patchRecord.run<number>(this.redis, this.routeKeys(appName, path), [
      JSON.stringify(patch),
    ]);
    if (updated !== 1) return null;
    await this.notices.changed();
    return this.get(appName, path);
  }

  async delete(appName: string, path: string): Promise<boolean> {
    const deleted = await scripts.deleteRoute.run<number>(
      this.redis,
      [this.keys.routes(appName), ...this.routeKeys(appName, path)],
      [path],
    );
    if (deleted !== 1) return false;
    const projectId = await this.redis.hget(this.keys.app(appName), 'project_id');
    if (projectId) {
      await this.index.removed(projectId, appName, path);
      await this.hotContainers.removed(projectId, appName, path);
    }
    await this.notices.changed({ app: appName, path });
    return true;
  }

  /** Routes of the app in path order after `cursor` (a path), at most `perPage`. */
  async list(appName: string, cursor: string | undefined, perPage: number): Promise<Route[]> {
    const paths = await this.redis.zrangebylex(
      this.keys.routes(appName),
      cursor ? `(${cursor}` : '-',
      '+',
      'LIMIT',
      0,
      perPage,
    );
    const routes = await Promise.all(paths.map((path) => this.get(appName, path)));
    return routes.filter((route): route is Route => route !== null);
  }
}
