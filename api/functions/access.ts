import type { FastifyRequest } from 'fastify';
import { countQuotaReached, quotasOf } from '../../src/auth/quotas.js';
import type { Principal } from '../../src/auth/types.js';
import { badRequest, isHttpError, notFound, unauthorized } from '../../src/core/errors.js';
import { isHotFormat, type AppScope } from '../../src/functions/app-store.js';
import type { FunctionStores } from '../../src/functions/services.js';
import type { App, Route } from '../../src/functions/types.js';
import { refuseTaskToken } from '../auth-hooks.js';
import { sessionCookieToken } from '../dashboard-session-cookie.js';
import { queryParameter } from '../request-fields.js';
import type { AppContext } from '../../controller/app-context.js';

const SCHEMES = /^(OAuth|Bearer) (.+)$/;

/** `Authorization: OAuth <token>` or `Bearer <token>`, else `?oauth=`, else the dashboard's session cookie. */
function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const match = SCHEMES.exec(header);
    if (!match) throw unauthorized('Authorization header must be "OAuth <token>" or "Bearer <token>"');
    return match[2]!.trim() || undefined;
  }
  const fromQuery = queryParameter(request, 'oauth');
  if (typeof fromQuery === 'string' && fromQuery !== '') return fromQuery;
  return sessionCookieToken(request);
}

/** Who may see which apps: an app is visible to tokens that can use its project. */
export class FunctionAccess {
  constructor(
    private readonly ctx: AppContext,
    private readonly stores: FunctionStores,
  ) {}

  async authenticate(request: FastifyRequest): Promise<Principal> {
    return refuseTaskToken(await this.ctx.authenticator.authenticate(presentedToken(request)));
  }

  private async canUse(principal: Principal, projectId: string): Promise<boolean> {
    try {
      await this.ctx.authenticator.authorizeProject(principal, projectId);
      return true;
    } catch (error) {
      if (isHttpError(error) && (error.statusCode === 403 || error.statusCode === 404)) return false;
      throw error;
    }
  }

  /** The app if it exists and the principal may use it; others' apps are 404 like missing ones. */
  async visibleApp(principal: Principal, name: string): Promise<App | null> {
    const app = await this.stores.apps.get(name);
    return app && (await this.canUse(principal, app.projectId)) ? app : null;
  }

  async mustSeeApp(principal: Principal, name: string): Promise<App> {
    const app = await this.visibleApp(principal, name);
    if (!app) throw notFound('App not found');
    return app;
  }

  /** The apps a listing may show. */
  async scopeOf(principal: Principal): Promise<AppScope> {
    if (principal.admin) return 'all';
    return {
      projectIds: (await this.ctx.identity.projects.listProjectsOf(principal.userId)).map((project) => project.id),
    };
  }

  /**
   * 403 naming the quota when the project has no room for one more route (and, with
   * `newApp`, one more app): see src/auth/quotas.ts.
   */
  async checkRoom(projectId: string, what: { newApp: boolean; newRoute: boolean }): Promise<void> {
    const quotas = quotasOf(await this.ctx.identity.projects.mustGetProject(projectId), this.ctx.config.quotas);
    if (what.newApp && (await this.stores.apps.count(projectId)) >= quotas.apps)
      throw countQuotaReached('apps', quotas.apps, 'apps');
    if (what.newRoute && (await this.stores.apps.routeCount(projectId)) >= quotas.routes)
      throw countQuotaReached('routes', quotas.routes, 'routes over all its apps');
  }

  /**
   * 403 naming the quota when `route` (new, or `route` as a change makes it) would give the
   * project more hot containers per runner than its `hot_containers` quota.
   */
  async checkHotContainers(projectId: string, route: Pick<Route, 'appName' | 'path' | 'format' | 'maxConcurrency'>) {
    if (!isHotFormat(route.format)) return;
    const quotas = quotasOf(await this.ctx.identity.projects.mustGetProject(projectId), this.ctx.config.quotas);
    const others = await this.stores.apps.hotContainers(projectId, { app: route.appName, path: route.path });
    if (others + route.maxConcurrency > quotas.hot_containers)
      throw countQuotaReached(
        'hot_containers',
        quotas.hot_containers,
        'hot containers per runner (the max_concurrency of its http, json and http-stream routes together)',
      );
  }

  /**
   * The project a new app goes to: the one asked for (which the token must be able to use),
   * else the user's only project.
   */
  async projectForNewApp(principal: Principal, requested: string | undefined): Promise<string> {
    if (requested) return (await this.ctx.authenticator.authorizeProject(principal, requested)).id;
    const projects = await this.ctx.identity.projects.listProjectsOf(principal.userId);
    if (projects.length === 1) return projects[0]!.id;
    if (projects.length === 0) throw badRequest('project_id is required: this user has no project to put the app in');
    throw badRequest('project_id is required: this user has several projects (give app.project_id or ?project_id=)');
  }
}
