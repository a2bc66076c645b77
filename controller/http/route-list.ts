import type { FastifyInstance } from 'fastify';

export interface ListedRoute {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered after `installRouteList`, one row per method. */
    routeList: ListedRoute[];
  }
}

/** Keeps the list of registered routes, for checks that must cover every route (admission order). */
export function installRouteList(app: FastifyInstance): void {
  const routes: ListedRoute[] = [];
  app.decorate('routeList', routes);
  app.addHook('onRoute', ({ method, url }) => {
    for (const each of Array.isArray(method) ? method : [method]) routes.push({ method: each, url });
  });
}
