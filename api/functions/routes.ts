import type { FromSchema } from 'json-schema-to-ts';
import type { Principal } from '../../src/auth/types.js';
import { fail } from '../../src/core/errors.js';
import { checkAppName } from '../../src/functions/apps/rules.js';
import type { Route } from '../../src/functions/types.js';
import { principalOf } from '../auth-hooks.js';
import type { ManagementDeps } from './deps.js';
import { checkSamePath, newRouteOf, routeChangesOf, type RouteInput } from './route-input.js';
import type { ApiInstance } from '../type-provider.js';
import { appParams, newRouteBody, pageQuery, routeBody, routeParams } from './schemas.js';
import { routeSchema, routeView, wrapped } from './views.js';

type RouteParams = FromSchema<typeof routeParams>;

const routeOfPath = (params: RouteParams) => `/${params['*']}`;

/** What the route endpoints share: creating a route (and its app), updating one, finding one. */
function routeActions({ ctx, stores, access }: ManagementDeps) {
  /** Creates the route, and its app when missing (in the project asked for, or the user's only one). */
  async function create(
    principal: Principal,
    appName: string,
    input: RouteInput,
    projectId: string | undefined,
  ): Promise<Route> {
    checkAppName(appName);
    const existing = await stores.apps.get(appName);
    if (existing && !(await access.visibleApp(principal, appName))) throw fail('fn_app_not_found');
    const project = existing ? existing.projectId : await access.projectForNewApp(principal, projectId);
    const route = newRouteOf(appName, input.path ?? '', input, ctx.config.functions);
    await access.checkRoom(project, { newApp: !existing, newRoute: true });
    await access.checkHotContainers(project, route);
    const outcome = await stores.routes.create(project, route);
    if (outcome === 'exists') throw fail('fn_route_exists', route.path);
    if (outcome === 'app-of-another-project') throw fail('fn_app_exists', appName);
    if (!existing) await ctx.lifecycle.appCreated(project, appName);
    return route;
  }

  async function mustFindRoute(principal: Principal, params: RouteParams): Promise<Route> {
    const found = await access.mustSeeApp(principal, params.app);
    const route = await stores.routes.get(found.name, routeOfPath(params));
    if (!route) throw fail('fn_route_not_found');
    return route;
  }

  async function update(principal: Principal, params: RouteParams, input: RouteInput): Promise<Route> {
    const route = await mustFindRoute(principal, params);
    checkSamePath(input, route.path);
    const changes = routeChangesOf(input, ctx.config.functions);
    const app = await stores.apps.get(route.appName);
    if (app) await access.checkHotContainers(app.projectId, { ...route, ...changes });
    const updated = await stores.routes.update(route.appName, route.path, changes);
    if (!updated) throw fail('fn_route_not_found');
    return updated;
  }

  return { create, update, mustFindRoute };
}

type RouteActions = ReturnType<typeof routeActions>;

/** Listing, reading and deleting routes. */
function routeReadRoutes(app: ApiInstance, { stores, access }: ManagementDeps, { mustFindRoute }: RouteActions): void {
  app.get(
    '/apps/:app/routes',
    {
      schema: {
        params: appParams,
        querystring: pageQuery,
        response: wrapped('routes', { type: 'array', items: routeSchema }),
      },
    },
    async (request) => {
      const found = await access.mustSeeApp(principalOf(request), request.params.app);
      const { cursor, per_page: perPage } = request.query;
      const routes = await stores.routes.list(found.name, cursor, perPage);
      const nextCursor = routes.length === perPage ? routes[routes.length - 1]!.path : undefined;
      return { message: 'Successfully listed routes', routes: routes.map(routeView), next_cursor: nextCursor };
    },
  );

  app.get(
    '/apps/:app/routes/*',
    { schema: { params: routeParams, response: wrapped('route', routeSchema) } },
    async (request) => {
      const route = await mustFindRoute(principalOf(request), request.params);
      return { message: 'Successfully loaded route', route: routeView(route) };
    },
  );

  app.delete(
    '/apps/:app/routes/*',
    { schema: { params: routeParams, response: wrapped('route', routeSchema) } },
    async (request) => {
      const route = await mustFindRoute(principalOf(request), request.params);
      if (!(await stores.routes.delete(route.appName, route.path))) throw fail('fn_route_not_found');
      return { message: 'Route successfully deleted' };
    },
  );
}

/** Creating (POST, or PUT of a missing route) and updating (PATCH, PUT) routes. */
function routeWriteRoutes(app: ApiInstance, { stores, access }: ManagementDeps, actions: RouteActions): void {
  const { create, update } = actions;
  app.post(
    '/apps/:app/routes',
    {
      schema: {
        params: appParams,
        querystring: pageQuery,
        body: newRouteBody,
        response: wrapped('route', routeSchema),
      },
    },
    async (request) => {
      const route = await create(
        principalOf(request),
        request.params.app,
        request.body.route,
        request.query.project_id,
      );
      return { message: 'Route successfully created', route: routeView(route) };
    },
  );

  app.patch(
    '/apps/:app/routes/*',
    {
      schema: { params: routeParams, body: routeBody, response: wrapped('route', routeSchema) },
    },
    async (request) => {
      const updated = await update(principalOf(request), request.params, request.body.route);
      return { message: 'Route successfully updated', route: routeView(updated) };
    },
  );

  app.put(
    '/apps/:app/routes/*',
    {
      schema: {
        params: routeParams,
        querystring: pageQuery,
        body: routeBody,
        response: wrapped('route', routeSchema),
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const path = routeOfPath(request.params);
      const input = request.body.route;
      checkSamePath(input, path);
      const exists =
        (await access.visibleApp(principal, request.params.app)) && (await stores.routes.get(request.params.app, path));
      if (exists)
        return {
          message: 'Route successfully updated',
          route: routeView(await update(principal, request.params, input)),
        };
      const route = await create(principal, request.params.app, { ...input, path }, request.query.project_id);
      return { message: 'Route successfully created', route: routeView(route) };
    },
  );
}

/** The routes of an app: /apps/{app}/routes and /apps/{app}/routes/{path}. */
export function routeRoutes(app: ApiInstance, deps: ManagementDeps): void {
  const actions = routeActions(deps);
  routeReadRoutes(app, deps, actions);
  routeWriteRoutes(app, deps, actions);
}
