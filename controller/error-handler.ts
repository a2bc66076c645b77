import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Router, { type HTTPMethod } from 'find-my-way';
import { HttpError } from '../src/core/errors.js';
import { withoutHostPaths } from '../src/core/host-paths.js';
import { isRedisUnavailable, REDIS_UNAVAILABLE } from '../src/core/redis.js';
import { JSON_CONTENT_TYPE } from '../api/json-content-type.js';

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Content-Type',
};

/** Every error leaves as {"msg": ...}: domain errors with their status, client mistakes as 4xx. */
/** `onRedisError`: told of each request that failed because Redis could not serve it (for a metric). */
export function installErrorHandling(app: FastifyInstance, onRedisError: (error: unknown) => void = () => {}): void {
  const knownPaths = Router();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (METHODS.includes(method as HTTPMethod) && !knownPaths.hasRoute(method as HTTPMethod, route.url)) {
        knownPaths.on(method as HTTPMethod, route.url, () => undefined);
      }
    }
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof HttpError) return reply.code(error.statusCode).send({ msg: withoutHostPaths(error.message) });
    // Not logged per request: the connection logs once when Redis goes and once when it is back.
    if (isRedisUnavailable(error)) {
      onRedisError(error);
      return reply
        .code(503)
        .header('Retry-After', String(REDIS_UNAVAILABLE.retryAfterSeconds))
        .send({ msg: REDIS_UNAVAILABLE.message });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ msg: FASTIFY_MESSAGES[error.code] ?? withoutHostPaths(error.message) });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(status >= 500 ? status : 500).send({ msg: 'Internal server error' });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((method) => knownPaths.find(method, path) !== null);
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header('Allow', allowed.join(', '))
        .send({ msg: `Method ${request.method} not allowed on ${path}` });
    }
    return reply.code(404).send({ msg: `Endpoint not found: ${request.method} ${path}` });
  });
}

const ROUTER_MESSAGES: Record<string, string> = {
  FST_ERR_BAD_URL: 'Invalid URL: a path segment is not valid percent-encoding',
  FST_ERR_MAX_PARAM_LENGTH: 'URL path parameter too long',
};

/** Errors the router raises before any route runs (bad %-escapes, over-long parameters), as {"msg"}. */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  // No onSend hook runs on these replies (fastify builds them outside any route), so the type is
  // set here; a reply serializer of its own keeps fastify from appending a charset to it.
  reply
    .code(error.statusCode ?? 400)
    .type(JSON_CONTENT_TYPE)
    .serializer(JSON.stringify)
    .send({ msg: ROUTER_MESSAGES[error.code] ?? withoutHostPaths(error.message) });
}
