import { parentPort } from 'node:worker_threads';
import { BODY_BYTES, BODY_WITHOUT_BYTES, type BodyBytes, type BodyBytesKind } from '../../api/body-bytes.js';
import { isHttpError } from '../../src/core/errors.js';
import { parseJsonBody } from './json-body.js';

/** One job of the JSON parse pool: a body's chunks as read (joined here), and what the route takes as bytes. */
export interface ParseJob {
  id: number;
  chunks: Uint8Array[];
  length: number;
  takesObject: boolean;
  bodyBytes: BodyBytesKind | null;
}

/** Its outcome: the value (structured-cloned back) and the route's bytes (moved), or the refusal the main thread rethrows. */
export type ParseOutcome =
  | { id: number; ok: true; value: unknown; empty: boolean; bytes: BodyBytes | null }
  | { id: number; ok: false; statusCode: number | null; message: string; code: string };

function outcomeOf(job: ParseJob): ParseOutcome {
  try {
    const chunks = job.chunks.map((chunk) => Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    const text = Buffer.concat(chunks, job.length).toString('utf8');
    const body = parseJsonBody(text, job.takesObject);
    const bytes = job.bodyBytes === null || body.empty ? null : BODY_BYTES[job.bodyBytes](body.value);
    const lighter = bytes && BODY_WITHOUT_BYTES[job.bodyBytes!];
    const value = lighter ? lighter(body.value as Record<string, unknown>) : body.value;
    return { id: job.id, ok: true, ...body, value, bytes };
  } catch (error) {
    const statusCode = isHttpError(error) ? error.statusCode : null;
    const code = isHttpError(error) ? error.code : 'unnamed';
    return { id: job.id, ok: false, statusCode, message: (error as Error).message, code };
  }
}

/** The one buffer the parts are views of (BodyBytes), moved to the main thread rather than copied. */
function moved(bytes: BodyBytes | null): ArrayBuffer[] {
  return bytes && bytes.parts.length > 0 ? [bytes.parts[0]!.buffer as ArrayBuffer] : [];
}

// A worker thread of controller/http/json-parse-pool.ts: joins, decodes and parses one body at a time.
parentPort?.on('message', (job: ParseJob) => {
  const outcome = outcomeOf(job);
  parentPort?.postMessage(outcome, outcome.ok ? moved(outcome.bytes) : []);
});
