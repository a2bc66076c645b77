import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Router, { type HTTPMethod } from 'find-my-way';
import { fail, isHttpError, type ErrorCode } from '../src/core/errors.js';
import { withoutHostPaths } from '../src/core/host-paths.js';
import { isRedisFull, isRedisUnavailable, REDIS_UNAVAILABLE } from '../src/core/redis.js';
import { JSON_CONTENT_TYPE } from './json-content-type.js';
import { IRON_SCHEMA_ERRORS, schemaError, type SchemaErrorStyle } from './schema-errors.js';

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** fastify's own refusals whose texts Ferrum words itself (the others keep fastify's message). */
const FRAMEWORK_ERRORS: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_content_type',
  FST_ERR_BAD_URL: 'bad_url_encoding',
  FST_ERR_MAX_PARAM_LENGTH: 'path_parameter_too_long',
};

/** What an API's error answers look like. */
export interface ErrorShape {
  /** The body of an error answer. */
  body(message: string): object;
  schema: SchemaErrorStyle;
  /** Whether a known path called with another method answers 405 (with `Allow`) rather than 404. */
  methodNotAllowed: boolean;
}

/** The iron APIs' shape: {"msg": ...}. */
export const IRON_ERROR_SHAPE: ErrorShape = {
  body: (message) => ({ msg: withoutHostPaths(message) }),
  schema: IRON_SCHEMA_ERRORS,
  methodNotAllowed: true,
};

/** A fastify error's message: the table's wording where Ferrum has one (the status stays fastify's). */
function frameworkMessage(error: FastifyError): string {
  const code = FRAMEWORK_ERRORS[error.code];
  return code ? fail(code).message : error.message;
}

/**
 * Every error of the routes of `app` (the whole server, or one plugin's scope) leaves in `shape`:
 * domain errors with their status, client mistakes as 4xx, a write refused by a full Redis as 507,
 * Redis trouble as 503 with `Retry-After`, anything else as a logged 500. `onRedisError` is told of each request that failed
 * because Redis could not serve it (for a metric).
 */
export function installErrorHandling(
  app: FastifyInstance,
  shape: ErrorShape = IRON_ERROR_SHAPE,
  onRedisError: (error: unknown) => void = () => {},
): void {
  app.setSchemaErrorFormatter((errors, context) => schemaError(errors as ErrorObject[], context, shape.schema));
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (isHttpError(error)) return reply.code(error.statusCode).send(shape.body(error.message));
    if (isRedisFull(error)) {
      onRedisError(error);
      const full = fail('redis_full');
      return reply.code(full.statusCode).send(shape.body(full.message));
    }
    // Not logged per request: the connection logs once when Redis goes and once when it is back.
    if (isRedisUnavailable(error)) {
      onRedisError(error);
      const unavailable = fail('redis_unavailable');
      return reply
        .code(unavailable.statusCode)
        .header('Retry-After', String(REDIS_UNAVAILABLE.retryAfterSeconds))
        .send(shape.body(unavailable.message));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.code(status).send(shape.body(frameworkMessage(error)));
    request.log.error({ err: error }, 'request failed');
    return reply.code(status >= 500 ? status : 500).send(shape.body(fail('internal_error').message));
  });
  installNotFound(app, shape);
}

/** Unknown paths answer 404; with `shape.methodNotAllowed`, known paths with another method 405. */
function installNotFound(app: FastifyInstance, shape: ErrorShape): void {
  const knownPaths = Router();
  if (shape.methodNotAllowed)
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        if (METHODS.includes(method as HTTPMethod) && !knownPaths.hasRoute(method as HTTPMethod, route.url)) {
          knownPaths.on(method as HTTPMethod, route.url, () => undefined);
        }
      }
    });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((method) => knownPaths.find(method, path) !== null);
    const error =
      allowed.length > 0
        ? fail('method_not_allowed', request.method, path)
        : fail('endpoint_not_found', request.method, path);
    if (allowed.length > 0) reply.header('Allow', allowed.join(', '));
    return reply.code(error.statusCode).send(shape.body(error.message));
  });
}

/** Errors the router raises before any route runs (bad %-escapes, over-long parameters), as {"msg"}. */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  // No onSend hook runs on these replies (fastify builds them outside any route), so the type is
  // set here; a reply serializer of its own keeps fastify from appending a charset to it.
  reply
    .code(error.statusCode ?? 400)
    .type(JSON_CONTENT_TYPE)
    .serializer(JSON.stringify)
    .send(IRON_ERROR_SHAPE.body(frameworkMessage(error)));
}
