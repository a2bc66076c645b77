import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';

/** What the request pipeline reads of a request's route, once per route rather than per request. */
export interface RouteFacts {
  bodyLimit: number;
  /** The route's body schema, if it declares one. */
  bodySchema: unknown;
  /** Its body is an object (so PHP's `[]` for "no parameters" means none). */
  takesObject: boolean;
  /** The route's config, as its handlers and hooks declared it. */
  config: FastifyRequest['routeOptions']['config'];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the route's first onRequest hook; null before it (and for what no route matched). */
    routeFacts: RouteFacts | null;
  }
}

function factsOf(options: FastifyRequest['routeOptions']): RouteFacts {
  const bodySchema = options.schema?.body;
  return {
    bodyLimit: options.bodyLimit,
    bodySchema,
    takesObject: (bodySchema as { type?: unknown } | undefined)?.type === 'object',
    config: options.config,
  };
}

/**
 * The request's route facts. Fastify 5 builds `request.routeOptions` (a dozen fields) on every
 * read, and the body reader, the large-body gate and the parser each want one:
 * each route keeps its record, made from its first request's routeOptions (after every onRoute
 * hook had its say), and hands it to each of its requests. What no route matched reads it afresh.
 */
export function routeFacts(request: FastifyRequest): RouteFacts {
  return request.routeFacts ?? factsOf(request.routeOptions);
}

/** Every route registered after this hands its record to its requests, before its other onRequest hooks. */
export function installRouteFacts(app: FastifyInstance): void {
  app.decorateRequest('routeFacts', null);
  app.addHook('onRoute', (route) => {
    let facts: RouteFacts | null = null;
    // Callback style: no promise per request.
    const handOver: onRequestHookHandler = (request, _reply, done) => {
      request.routeFacts = facts ??= factsOf(request.routeOptions);
      done();
    };
    route.onRequest = [handOver, ...[route.onRequest ?? []].flat()];
  });
}
