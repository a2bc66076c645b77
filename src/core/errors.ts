/**
 * The one error type of Ferrum and the one table of what can go wrong.
 *
 * Every refusal a user can see is a row of ERRORS: a code, the HTTP status, and the message
 * (a fixed text, or a template filled from the throw site's arguments). Domain modules throw
 * `fail(code, ...args)`; the HTTP layer's one error handler sends the status and the message,
 * in the shape of the API that was called ({"msg"} or the functions API's {"error":{"message"}}).
 *
 * The table is split by domain so that each domain's rows stay together; codes are unique
 * across the whole table (the spread below would hide a duplicate, so a unit test checks it).
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

type Template = string | ((...args: never[]) => string);

interface ErrorRow {
  readonly status: number;
  readonly message: Template;
}

const row = <T extends Template>(status: number, message: T) => ({ status, message }) as const;

// ---- core: shared by every domain ---------------------------------------------------------
export const CORE_ERRORS = {
  redis_unavailable: row(
    503,
    'Service temporarily unavailable: the data store cannot be reached or cannot take writes now; retry shortly',
  ),
} as const;

// ---- http: the framework's refusals (routing, bodies, schemas) -----------------------------
export const HTTP_ERRORS = {} as const;

// ---- auth: identity, tokens, projects, quotas ----------------------------------------------
export const AUTH_ERRORS = {
  email_taken: row(409, (email: string) => `email ${email} is already taken`),
  user_not_found: row(404, 'User not found'),
  token_value_taken: row(409, 'token value is already in use'),
  project_exists: row(409, (id: string) => `project ${id} already exists`),
  project_not_found: row(404, 'Project not found'),
} as const;

// ---- cache ---------------------------------------------------------------------------------
export const CACHE_ERRORS = {} as const;

// ---- mq: queues, messages, subscribers -----------------------------------------------------
export const MQ_ERRORS = {} as const;

// ---- worker: codes, tasks, schedules, clusters, runners ------------------------------------
export const WORKER_ERRORS = {} as const;

// ---- runner API: the /1/runner routes remote runners call ---------------------------------
export const RUNNER_ERRORS = {} as const;

// ---- functions: apps, routes, calls --------------------------------------------------------
export const FUNCTIONS_ERRORS = {} as const;

// --------------------------------------------------------------------------------------------
export const ERRORS = {
  ...CORE_ERRORS,
  ...HTTP_ERRORS,
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

// Generic constructors, kept while throw sites move to table rows; new code uses fail().
export const badRequest = (msg: string) => new HttpError(400, msg);
export const unauthorized = (msg = 'Invalid or missing token') => new HttpError(401, msg);
export const forbidden = (msg: string) => new HttpError(403, msg);
export const notFound = (msg: string) => new HttpError(404, msg);
export const methodNotAllowed = (msg: string) => new HttpError(405, msg);
export const notAcceptable = (msg: string) => new HttpError(406, msg);
export const conflict = (msg: string) => new HttpError(409, msg);
export const payloadTooLarge = (msg: string) => new HttpError(413, msg);
export const tooManyRequests = (msg: string) => new HttpError(429, msg);
export const unavailable = (msg: string) => new HttpError(503, msg);

export function isHttpError(error: unknown): error is HttpError {
  return error instanceof HttpError;
}
