import type { Readable } from 'node:stream';
import { errorCodes, type FastifyRequest } from 'fastify';
import { routeFacts } from './route-facts.js';

/** A request body as read: its chunks, never joined here, and their total length. */
export interface RawBody {
  chunks: Buffer[];
  length: number;
}

type Done = (error: Error | null, body?: RawBody) => void;

/**
 * Reads a body as fastify's own reader does (`parseAs`): at most the route's body limit, a
 * declared Content-Length it must match, the same refusals. But it hands over the chunks as
 * read: fastify would join them on the event loop, and a large body is joined by the parse
 * thread instead (json-parse-pool.ts).
 */
export function readRawBody(request: FastifyRequest, payload: Readable, done: Done): void {
  const limit = routeFacts(request).bodyLimit;
  const declared = Number(request.headers['content-length']);
  if (declared > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  const chunks: Buffer[] = [];
  let length = 0;
  const finish = (error: Error | null, body?: RawBody) => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onEnd);
    done(error, body);
  };
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    length += bytes.length;
    if (length > limit) return finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    chunks.push(bytes);
  };
  const onEnd = (error?: Error & { statusCode?: number }) => {
    if (error) {
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
      return finish(error);
    }
    if (!Number.isNaN(declared) && length !== declared) {
      return finish(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
    }
    finish(null, { chunks, length });
  };
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onEnd);
  payload.resume();
}

/** The body's bytes in one buffer (a small body's: large ones are joined by the parse thread). */
export function joined({ chunks, length }: RawBody): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
}
