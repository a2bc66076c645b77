import { availableParallelism } from 'node:os';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BodyBytes } from '../../api/body-bytes.js';
import { parseJsonBody, type JsonBody } from './json-body.js';
import { JsonParsePool } from './json-parse-pool.js';
import { joined, readRawBody, type RawBody } from './raw-body.js';
import { routeFacts } from './route-facts.js';

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

type Done = (error: Error | null, value?: unknown) => void;

function answer(request: FastifyRequest, done: Done, body: JsonBody, bytes: BodyBytes | null = null): void {
  request.emptyJsonBody = body.empty;
  request.bodyBytes = bytes;
  done(null, body.value);
}

/** A body of `POOLED_JSON_BODY_BYTES` or more goes to the pool (false when too many wait there already). */
function parsedInPool(pool: JsonParsePool, request: FastifyRequest, body: RawBody, done: Done): boolean {
  if (body.length < POOLED_JSON_BODY_BYTES) return false;
  const route = routeFacts(request);
  const pooled = pool.parse(body, route.takesObject, route.config.bodyBytes ?? null);
  if (pooled === null) return false;
  pooled.then(
    (parsed) => answer(request, done, parsed, parsed.bytes),
    (error: Error) => done(error, undefined),
  );
  return true;
}

function parsedHere(request: FastifyRequest, body: RawBody, done: Done): void {
  let parsed: JsonBody;
  try {
    parsed = parseJsonBody(joined(body).toString('utf8'), () => routeFacts(request).takesObject);
  } catch (error) {
    return done(error as Error, undefined);
  }
  answer(request, done, parsed);
}

/**
 * JSON bodies (see `parseJsonBody` for the clients' quirks it accepts); unparsable JSON is a 400
 * that says so. Bodies of `POOLED_JSON_BODY_BYTES` and more are joined, decoded and parsed by a
 * worker thread (`JsonParsePool`), with the parts their route takes as bytes (`request.bodyBytes`):
 * one tenant's megabytes never hold the event loop for the parse, nor for their encoding.
 * Other content types arrive as text, for routes that take raw bodies (webhooks).
 */
export function installContentTypes(app: FastifyInstance): void {
  const pool = new JsonParsePool(Math.min(2, Math.max(1, availableParallelism() - 1)), MAX_QUEUED_PARSES);
  app.addHook('onClose', async () => pool.close());
  app.decorateRequest('emptyJsonBody', false);
  app.decorateRequest('bodyBytes', null);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done) =>
    readRawBody(request, payload, (error, body) => {
      if (error) return done(error, undefined);
      if (!parsedInPool(pool, request, body!, done)) parsedHere(request, body!, done);
    }),
  );
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
}
