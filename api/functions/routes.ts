import type { FromSchema } from 'json-schema-to-ts';
import { principalOf } from '../auth-hooks.js';
import type { ManagementDeps } from './deps.js';
import type { ApiInstance } from '../type-provider.js';
import { appParams, newRouteBody, pageQuery, routeBody, routeParams } from './schemas.js';
import { routeSchema, routeView, wrapped } from './views.js';

type RouteParams = FromSchema<typeof routeParams>;

const routeOfPath = (params: RouteParams) => `/${params['*']}`;

/** Listing, reading and deleting routes. */
function routeReadRoutes(app: ApiInstance, { management }: ManagementDeps): void {
  const routes = management.routes;
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
      const { cursor, per_page: perPage } = request.query;
      const listed = await routes.list(principalOf(request), request.params.app, cursor, perPage);
      const nextCursor = listed.length === perPage ? listed[listed.length - 1]!.path : undefined;
      return { message: 'Successfully listed routes', routes: listed.map(routeView), next_cursor: nextCursor };
    },
  );

  app.get(
    '/apps/:app/routes/*',
    { schema: { params: routeParams, response: wrapped('route', routeSchema) } },
    async (request) => {
      const route = await routes.get(principalOf(request), request.params.app, routeOfPath(request.params));
      return { message: 'Successfully loaded route', route: routeView(route) };
    },
  );

  app.delete(
    '/apps/:app/routes/*',
    { schema: { params: routeParams, response: wrapped('route', routeSchema) } },
    async (request) => {
      await routes.delete(principalOf(request), request.params.app, routeOfPath(request.params));
      return { message: 'Route successfully deleted' };
    },
  );
}

/** Creating (POST, or PUT of a missing route) and updating (PATCH, PUT) routes. */
function routeWriteRoutes(app: ApiInstance, { management }: ManagementDeps): void {
  const routes = management.routes;
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
      const { app: appName } = request.params;
      const route = await routes.create(principalOf(request), appName, request.body.route, request.query.project_id);
      return { message: 'Route successfully created', route: routeView(route) };
    },
  );

  app.patch(
    '/apps/:app/routes/*',
    {
      schema: { params: routeParams, body: routeBody, response: wrapped('route', routeSchema) },
    },
    async (request) => {
      const path = routeOfPath(request.params);
      const updated = await routes.update(principalOf(request), request.params.app, path, request.body.route);
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
      const path = routeOfPath(request.params);
      const { app: appName } = request.params;
      const principal = principalOf(request);
      const { route, created } = await routes.put(
        principal,
        appName,
        path,
        request.body.route,
        request.query.project_id,
      );
      const message = created ? 'Route successfully created' : 'Route successfully updated';
      return { message, route: routeView(route) };
    },
  );
}

/** The routes of an app: /apps/{app}/routes and /apps/{app}/routes/{path}. */
export function routeRoutes(app: ApiInstance, deps: ManagementDeps): void {
  routeReadRoutes(app, deps);
  routeWriteRoutes(app, deps);
}
