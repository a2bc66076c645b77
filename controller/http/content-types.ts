import { availableParallelism } from 'node:os';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseJsonBody, type JsonBody } from './json-body.js';
import { JsonParsePool } from './json-parse-pool.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body was declared JSON but empty (and so reads as {}): routes that need an explicit body check this. */
    emptyJsonBody: boolean;
  }
}

/**
 * From this size a JSON body is decoded and parsed in the parse pool: about where decoding and
 * parsing it takes a millisecond or more of the event loop every tenant shares.
 */
export const POOLED_JSON_BODY_BYTES = 64 * 1024;
/** Large bodies waiting for a parse thread; past this, they are parsed on the main thread. */
const MAX_QUEUED_PARSES = 64;

/** Whether the route's body is an object (so PHP's `[]` for "no parameters" means none). */
function takesObject(request: FastifyRequest): boolean {
  return (request.routeOptions.schema?.body as { type?: unknown } | undefined)?.type === 'object';
}

type Done = (error: Error | null, value?: unknown) => void;

function answer(request: FastifyRequest, done: Done, body: JsonBody): void {
  request.emptyJsonBody = body.empty;
  done(null, body.value);
}

/**
 * JSON bodies (see `parseJsonBody` for the clients' quirks it accepts); unparsable JSON is a 400
 * that says so. Bodies of `POOLED_JSON_BODY_BYTES` and more are decoded and parsed by a worker
 * thread (`JsonParsePool`): one tenant's megabytes never hold the event loop for the parse.
 * Other content types arrive as text, for routes that take raw bodies (webhooks).
 */
export function installContentTypes(app: FastifyInstance): void {
  const pool = new JsonParsePool(Math.min(2, Math.max(1, availableParallelism() - 1)), MAX_QUEUED_PARSES);
  app.addHook('onClose', async () => pool.close());
  app.decorateRequest('emptyJsonBody', false);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    const pooled = bytes.length >= POOLED_JSON_BODY_BYTES ? pool.parse(bytes, takesObject(request)) : null;
    if (pooled !== null) {
      pooled.then(
        (parsed) => answer(request, done, parsed),
        (error: Error) => done(error, undefined),
      );
      return;
    }
    let parsed: JsonBody;
    try {
      parsed = parseJsonBody(bytes.toString('utf8'), () => takesObject(request));
    } catch (error) {
      return done(error as Error, undefined);
    }
    answer(request, done, parsed);
  });
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
}
