import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { fail } from '../../src/core/errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/core/json-depth.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body was declared JSON but empty (and so reads as {}): routes that need an explicit body check this. */
    emptyJsonBody: boolean;
  }
}

/**
 * JSON bodies: an empty body counts as {} (existing clients send Content-Type: application/json
 * with no body on DELETE and GET); unparsable JSON is a 400 that says so.
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
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return done(fail('invalid_json_too_deep', MAX_JSON_DEPTH), undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }));
    } catch (error) {
      done(fail('invalid_json', (error as Error).message), undefined);
    }
  });
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
}
