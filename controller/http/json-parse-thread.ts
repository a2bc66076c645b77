import { parentPort } from 'node:worker_threads';
import { isHttpError } from '../../src/core/errors.js';
import { parseJsonBody } from './json-body.js';

/** One job of the JSON parse pool: a body's bytes, as read. */
export interface ParseJob {
  id: number;
  bytes: Uint8Array;
  takesObject: boolean;
}

/** Its outcome: the value (structured-cloned back), or the refusal the main thread rethrows. */
export type ParseOutcome =
  | { id: number; ok: true; value: unknown; empty: boolean }
  | { id: number; ok: false; statusCode: number | null; message: string; code: string };

function outcomeOf(job: ParseJob): ParseOutcome {
  try {
    const text = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength).toString('utf8');
    return { id: job.id, ok: true, ...parseJsonBody(text, job.takesObject) };
  } catch (error) {
    const statusCode = isHttpError(error) ? error.statusCode : null;
    const code = isHttpError(error) ? error.code : 'unnamed';
    return { id: job.id, ok: false, statusCode, message: (error as Error).message, code };
  }
}

// A worker thread of controller/http/json-parse-pool.ts: decodes and parses one body at a time.
parentPort?.on('message', (job: ParseJob) => parentPort?.postMessage(outcomeOf(job)));
