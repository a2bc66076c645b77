import type { ProjectLifecycle } from '../../auth/project-lifecycle.js';
import type { Principal } from '../../auth/types.js';
import type { FunctionsConfig } from '../../core/config.js';
import { fail } from '../../core/errors.js';
import type { FunctionAccess } from '../apps/access.js';
import type { AppStore } from '../apps/app-store.js';
import { checkAppName } from '../apps/rules.js';
import type { Route } from '../types.js';
import { checkSamePath, newRouteOf, routeChangesOf, type RouteInput } from './route-input.js';
import type { RouteStore } from './route-store.js';

/** What the management API does with routes, for a principal: each rule and check, then the store. */
export class RouteManagement {
  constructor(
    private readonly apps: AppStore,
    private readonly routes: RouteStore,
    private readonly access: FunctionAccess,
    private readonly lifecycle: Pick<ProjectLifecycle, 'appCreated'>,
    private readonly settings: FunctionsConfig,
  ) {}

  /** Creates the route, and its app when missing (in the project asked for, or the user's only one). */
  async create(
    principal: Principal,
    appName: string,
    input: RouteInput,
    projectId: string | undefined,
  ): Promise<Route> {
    checkAppName(appName);
    const existing = await this.apps.get(appName);
    if (existing && !(await this.access.visibleApp(principal, appName))) throw fail('fn_app_not_found');
    const project = existing ? existing.projectId : await this.access.projectForNewApp(principal, projectId);
    const route = newRouteOf(appName, input.path ?? '', input, this.settings);
    const room = { newApp: existing ? null : appName, newRoute: { app: appName, path: route.path } };
    await this.access.withRoom(project, room, () =>
      this.access.withHotContainers(project, route, async () => {
        const outcome = await this.routes.create(project, route);
        if (outcome === 'exists') throw fail('fn_route_exists', route.path);
        if (outcome === 'app-of-another-project') throw fail('fn_app_exists', appName);
      }),
    );
    if (!existing) await this.lifecycle.appCreated(project, appName);
    return route;
  }

  /** The routes of an app the principal may see, by path, after `cursor`. */
  async list(principal: Principal, appName: string, cursor: string | undefined, perPage: number): Promise<Route[]> {
    const found = await this.access.mustSeeApp(principal, appName);
    return this.routes.list(found.name, cursor, perPage);
  }

  /** 404 for a route of an app the principal may not see, as for a missing one. */
  async get(principal: Principal, appName: string, path: string): Promise<Route> {
    const found = await this.access.mustSeeApp(principal, appName);
    const route = await this.routes.get(found.name, path);
    if (!route) throw fail('fn_route_not_found');
    return route;
  }

  /** Applies the changes asked for; the path may be repeated, not changed. */
  async update(principal: Principal, appName: string, path: string, input: RouteInput): Promise<Route> {
    const route = await this.get(principal, appName, path);
    checkSamePath(input, route.path);
    const changes = routeChangesOf(input, this.settings);
    const app = await this.apps.get(route.appName);
    if (!app) throw fail('fn_route_not_found');
    return this.access.withHotContainers(app.projectId, { ...route, ...changes }, async () => {
      const updated = await this.routes.update(route.appName, route.path, changes);
      if (!updated) throw fail('fn_route_not_found');
      return updated;
    });
  }

  /** PUT: updates the route when the principal sees it, else creates it (and its app when missing). */
  async put(
    principal: Principal,
    appName: string,
    path: string,
    input: RouteInput,
    projectId: string | undefined,
  ): Promise<{ route: Route; created: boolean }> {
    checkSamePath(input, path);
    const exists = (await this.access.visibleApp(principal, appName)) && (await this.routes.get(appName, path));
    if (exists) return { route: await this.update(principal, appName, path, input), created: false };
    return { route: await this.create(principal, appName, { ...input, path }, projectId), created: true };
  }

  async delete(principal: Principal, appName: string, path: string): Promise<void> {
    const route = await this.get(principal, appName, path);
    if (!(await this.routes.delete(route.appName, route.path))) throw fail('fn_route_not_found');
  }
}
