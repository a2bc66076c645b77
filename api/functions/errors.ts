import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, isHttpError } from '../../src/core/errors.js';
import { withoutHostPaths } from '../../src/core/host-paths.js';
import { isRedisUnavailable, REDIS_UNAVAILABLE } from '../../src/core/redis.js';

const FRAMEWORK_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Content-Type',
};

export function errorBody(message: string) {
  return { error: { message: withoutHostPaths(message) } };
}

/** `route.memory` from an ajv error; the missing property for `required`. */
function fieldOf(error: ErrorObject, context: string): string {
  const path = error.instancePath.split('/').filter(Boolean).join('.');
  const missing = error.keyword === 'required' ? (error.params as { missingProperty: string }).missingProperty : '';
  return [path, missing].filter(Boolean).join('.') || context;
}

/** Schema failures of the functions API: always 400, naming the field. */
function schemaError(errors: ErrorObject[], context: string): HttpError {
  const first = errors[0];
  if (!first) return new HttpError(400, `invalid ${context}`);
  const field = fieldOf(first, context);
  if (first.keyword === 'required') return new HttpError(400, `${field} is required`);
  if (first.keyword === 'enum')
    return new HttpError(
      400,
      `${field} must be one of: ${(first.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`,
    );
  return new HttpError(400, `${field} ${first.message ?? 'is invalid'}`);
}

/**
 * The functions platform answers errors as {"error":{"message"}} (its own shape, unlike the
 * other services' {"msg"}); scoped to the plugin this is called in.
 */
export function installFunctionErrors(app: FastifyInstance): void {
  app.setSchemaErrorFormatter((errors, context) => schemaError(errors as ErrorObject[], context));
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (isHttpError(error)) return reply.code(error.statusCode).send(errorBody(error.message));
    if (isRedisUnavailable(error)) {
      return reply
        .code(503)
        .header('Retry-After', String(REDIS_UNAVAILABLE.retryAfterSeconds))
        .send(errorBody(REDIS_UNAVAILABLE.message));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500)
      return reply.code(status).send(errorBody(FRAMEWORK_MESSAGES[error.code] ?? error.message));
    request.log.error({ err: error }, 'functions request failed');
    return reply.code(500).send(errorBody('Internal server error'));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody(`Endpoint not found: ${request.method} ${request.url.split('?')[0]}`));
  });
}
