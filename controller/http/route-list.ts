import type { FastifyInstance, FastifySchema } from 'fastify';

/** A registered route: its method(s), URL pattern and schema as declared. */
export interface RouteEntry {
  method: string | string[];
  url: string;
  schema: FastifySchema | undefined;
}

const routeLists = new WeakMap<FastifyInstance, RouteEntry[]>();

/**
 * Every route of the app (as built by installRouteList's app), in registration order: what
 * checks over "every route" (null-field pruning, the generated-input tests) walk, so a new
 * route is covered as soon as it is registered.
 */
export function routeListOf(app: FastifyInstance): readonly RouteEntry[] {
  return routeLists.get(app) ?? [];
}

export function installRouteList(app: FastifyInstance): void {
  const routes: RouteEntry[] = [];
  routeLists.set(app, routes);
  app.addHook('onRoute', ({ method, url, schema }) => {
    routes.push({ method, url, schema });
  });
}

/** Every route as one row per method (a route may declare several). */
export function routesByMethodOf(app: FastifyInstance): Array<{ method: string; url: string }> {
  return routeListOf(app).flatMap(({ method, url }) =>
    (Array.isArray(method) ? method : [method]).map((each) => ({ method: each, url })),
  );
}
