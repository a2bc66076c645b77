import { AUTH_ERRORS } from './error-rows/auth.js';
import { CACHE_ERRORS } from './error-rows/cache.js';
import { CORE_ERRORS } from './error-rows/core.js';
import { FIELD_ERRORS } from './error-rows/fields.js';
import { FUNCTIONS_ERRORS } from './error-rows/functions.js';
import { HTTP_ERRORS } from './error-rows/http.js';
import { MQ_ERRORS } from './error-rows/mq.js';
import type { ErrorRow } from './error-rows/row.js';
import { RUNNER_ERRORS } from './error-rows/runner.js';
import { WORKER_ERRORS } from './error-rows/worker.js';

/**
 * The one error type of Ferrum and the one table of what can go wrong.
 *
 * Every refusal a user can see is a row of ERRORS: a code, the HTTP status, and the message
 * (a fixed text, or a template filled from the throw site's arguments). Domain modules throw
 * `fail(code, ...args)`; the HTTP layer's one error handler sends the status and the message,
 * in the shape of the API that was called ({"msg"} or the functions API's {"error":{"message"}}).
 *
 * The rows are kept by domain, one file each in src/core/error-rows/, so that each domain's
 * rows stay together; codes are unique across the whole table (the spread below would hide a
 * duplicate, so test/unit/error-table.test.ts checks it).
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code = 'unnamed',
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** The one error table: every domain's rows (src/core/error-rows/), codes unique across all. */
export const ERRORS = {
  ...CORE_ERRORS,
  ...HTTP_ERRORS,
  ...FIELD_ERRORS,
  ...AUTH_ERRORS,
  ...CACHE_ERRORS,
  ...MQ_ERRORS,
  ...WORKER_ERRORS,
  ...RUNNER_ERRORS,
  ...FUNCTIONS_ERRORS,
} satisfies Record<string, ErrorRow>;

export type ErrorCode = keyof typeof ERRORS;

type ArgsOf<C extends ErrorCode> = (typeof ERRORS)[C]['message'] extends (...args: infer A) => string ? A : [];

/** The error of table row `code`, its message filled from `args`. */
export function fail<C extends ErrorCode>(code: C, ...args: ArgsOf<C>): HttpError {
  const entry: ErrorRow = ERRORS[code];
  const message =
    typeof entry.message === 'string' ? entry.message : (entry.message as (...a: unknown[]) => string)(...args);
  return new HttpError(entry.status, message, code);
}

export function isHttpError(error: unknown): error is HttpError {
  return error instanceof HttpError;
}
