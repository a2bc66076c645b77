import type { Authenticator } from '../../auth/authenticator.js';
import type { ProjectStore } from '../../auth/projects.js';
import { countQuotaReached, quotasOf, type Quotas } from '../../auth/quotas.js';
import type { Principal } from '../../auth/types.js';
import type { IndexClaim } from '../../core/bounded-index.js';
import { fail, isHttpError } from '../../core/errors.js';
import type { FeatureFlags } from '../../core/features/storage-features.js';
import type { RouteIndex } from '../routes/route-index.js';
import type { AppScope, AppStore } from './app-store.js';
import type { HotContainerRoom, HotRoute } from '../routes/hot-containers.js';
import type { App } from '../types.js';

/** What access to apps reads: who may use which project, the projects and their quotas. */
export interface FunctionAccessSources {
  authenticator: Pick<Authenticator, 'authorizeProject'>;
  projects: Pick<ProjectStore, 'listProjectsOf' | 'mustGetProject'>;
  quotaDefaults: Quotas;
  /** Whether routes are counted by the project's route index (flag `route_index`). */
  features: FeatureFlags;
}

/** A route about to be created. */
export interface NewRoute {
  app: string;
  path: string;
}

/** Who may see which apps: an app is visible to tokens that can use its project. */
export class FunctionAccess {
  constructor(
    private readonly sources: FunctionAccessSources,
    private readonly apps: AppStore,
    private readonly routeIndex: RouteIndex,
    private readonly hotContainers: HotContainerRoom,
  ) {}

  private async canUse(principal: Principal, projectId: string): Promise<boolean> {
    try {
      await this.sources.authenticator.authorizeProject(principal, projectId);
      return true;
    } catch (error) {
      if (isHttpError(error) && (error.statusCode === 403 || error.statusCode === 404)) return false;
      throw error;
    }
  }

  /** The app if it exists and the principal may use it; others' apps are 404 like missing ones. */
  async visibleApp(principal: Principal, name: string): Promise<App | null> {
    const app = await this.apps.get(name);
    return app && (await this.canUse(principal, app.projectId)) ? app : null;
  }

  async mustSeeApp(principal: Principal, name: string): Promise<App> {
    const app = await this.visibleApp(principal, name);
    if (!app) throw fail('fn_app_not_found');
    return app;
  }

  /** The apps a listing may show. */
  async scopeOf(principal: Principal): Promise<AppScope> {
    if (principal.admin) return 'all';
    return { projectIds: (await this.sources.projects.listProjectsOf(principal.userId)).map((project) => project.id) };
  }

  /**
   * Runs `create` once the project has room for the new route `newRoute` (or null) and for the
   * new app `newApp` (a name, or null): 403 naming the quota otherwise (see src/auth/quotas.ts). A
   * new app's name goes into the project's app index in the same step that counts it, and so does
   * a new route into the project's route index once the flag `route_index` is on, so racing
   * creations cannot pass the `apps` and `routes` quotas; if `create` fails, what it added is
   * taken out.
   */
  async withRoom<T>(
    projectId: string,
    what: { newApp: string | null; newRoute: NewRoute | null },
    create: () => Promise<T>,
  ): Promise<T> {
    const quotas = quotasOf(await this.sources.projects.mustGetProject(projectId), this.sources.quotaDefaults);
    const claim = what.newApp === null ? 'present' : await this.apps.claimName(projectId, what.newApp, quotas.apps);
    if (claim === 'full') throw countQuotaReached('apps', quotas.apps, 'apps');
    let routeClaim: IndexClaim = 'present';
    try {
      if (what.newRoute) routeClaim = await this.roomForRoute(projectId, what.newRoute, quotas.routes);
      return await create();
    } catch (error) {
      if (routeClaim === 'added') await this.routeIndex.release(projectId, what.newRoute!.app, what.newRoute!.path);
      if (claim === 'added') await this.apps.releaseName(projectId, what.newApp!);
      throw error;
    }
  }

  /**
   * Claims the route in the project's route index under the quota; without the flag (releases
   * before it do not keep the index), counts the routes of the project's apps instead.
   */
  private async roomForRoute(projectId: string, route: NewRoute, maxRoutes: number): Promise<IndexClaim> {
    const claim = this.sources.features.enabled('route_index')
      ? await this.routeIndex.claim(projectId, route.app, route.path, maxRoutes)
      : (await this.apps.routeCount(projectId)) >= maxRoutes
        ? 'full'
        : 'present';
    if (claim === 'full') throw countQuotaReached('routes', maxRoutes, 'routes over all its apps');
    return claim;
  }

  /**
   * Runs `save`, which writes `route` (new, or as a change makes it), once its hot containers are
   * reserved under the project's `hot_containers` quota (403 naming it otherwise); given back if
   * `save` fails.
   */
  async withHotContainers<T>(projectId: string, route: HotRoute, save: () => Promise<T>): Promise<T> {
    const quotas = quotasOf(await this.sources.projects.mustGetProject(projectId), this.sources.quotaDefaults);
    const reservation = await this.hotContainers.reserve(projectId, route, quotas.hot_containers);
    if (!reservation)
      throw countQuotaReached(
        'hot_containers',
        quotas.hot_containers,
        'hot containers per runner (the max_concurrency of its http, json and http-stream routes together)',
      );
    try {
      return await save();
    } catch (error) {
      await this.hotContainers.release(reservation);
      throw error;
    }
  }

  /**
   * The project a new app goes to: the one asked for (which the token must be able to use),
   * else the user's only project.
   */
  async projectForNewApp(principal: Principal, requested: string | undefined): Promise<string> {
    if (requested) return (await this.sources.authenticator.authorizeProject(principal, requested)).id;
    const projects = await this.sources.projects.listProjectsOf(principal.userId);
    if (projects.length === 1) return projects[0]!.id;
    if (projects.length === 0) throw fail('fn_project_required_none');
    throw fail('fn_project_required_several');
  }
}
