import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HttpError } from '../../src/core/errors.js';
import { parseJsonText } from '../../src/core/json-text.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body was declared JSON but empty (and so reads as {}): routes that need an explicit body check this. */
    emptyJsonBody: boolean;
  }
}

/** Whether the route's body is an object (so PHP's `[]` for "no parameters" means none). */
function takesObject(request: FastifyRequest): boolean {
  return (request.routeOptions.schema?.body as { type?: unknown } | undefined)?.type === 'object';
}

/**
 * JSON bodies: an empty body counts as {} (existing clients send Content-Type: application/json
 * with no body on DELETE and GET), and so does `[]` where the route takes an object: the PHP
 * clients send json_encode(array()), `[]`, on PUT, PATCH, POST and DELETE without parameters.
 * Unparsable JSON is a 400 that says so.
 * Other content types arrive as text, for routes that take raw bodies (webhooks).
 */
export function installContentTypes(app: FastifyInstance): void {
  app.decorateRequest('emptyJsonBody', false);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = (body as string).trim();
    if (text === '') {
      request.emptyJsonBody = true;
      return done(null, {});
    }
    // Given on purpose, unlike an empty body: a clear with `[]` is PHP's clear with {}.
    if (text === '[]' && takesObject(request)) return done(null, {});
    let value: unknown;
    try {
      value = parseJsonText(text);
    } catch (error) {
      return done(error as HttpError, undefined);
    }
    done(null, value);
  });
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
}
