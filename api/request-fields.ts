import type { FastifyRequest } from 'fastify';

/**
 * Fields read where the route is not known yet (hooks shared by many routes), so no schema
 * types them: a string or undefined, whatever the client sent.
 */
function stringField(source: unknown, name: string): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const value: unknown = Reflect.get(source, name);
  return typeof value === 'string' ? value : undefined;
}

/** A path parameter of whichever route the request matched. */
export function pathParameter(request: FastifyRequest, name: string): string | undefined {
  return stringField(request.params, name);
}

/** A query string parameter, before the route's schema has looked at the query. */
export function queryParameter(request: FastifyRequest, name: string): string | undefined {
  return stringField(request.query, name);
}
