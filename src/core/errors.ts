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
  not_authenticated: row(401, 'Invalid or missing token'),
  /** What a running task's own token may use (README, "How tasks run"); every other route refuses it. */
  task_token_out_of_scope: row(
    403,
    "A task token is valid only for its own project's queues, caches and code packages, for queueing and reading its tasks, and for its own task's progress",
  ),
  // A push queue's `ironworker:///<code>` subscriber queues no task for a suspended project.
  project_suspended_no_tasks: row(403, 'Project is suspended: no tasks are queued'),
} as const;

// ---- http: the framework's refusals (routing, bodies, schemas) -----------------------------
export const HTTP_ERRORS = {
  endpoint_not_found: row(404, (method: string, path: string) => `Endpoint not found: ${method} ${path}`),
  method_not_allowed: row(405, (method: string, path: string) => `Method ${method} not allowed on ${path}`),
  internal_error: row(500, 'Internal server error'),
  // fastify's refusals, worded by Ferrum (the handler keeps fastify's status).
  body_too_large: row(413, 'Request body is too large'),
  unsupported_content_type: row(415, 'Unsupported Content-Type'),
  bad_url_encoding: row(400, 'Invalid URL: a path segment is not valid percent-encoding'),
  path_parameter_too_long: row(414, 'URL path parameter too long'),
  // Schema failures (api/schema-errors.ts), naming the field.
  invalid_request_part: row(400, (part: string) => `invalid ${part}`),
  field_required: row(406, (field: string) => `${field} is required`),
  /** The functions API answers a missing field 400, not the iron APIs' 406. */
  field_required_400: row(400, (field: string) => `${field} is required`),
  field_not_one_of: row(400, (field: string, allowed: string) => `${field} must be one of: ${allowed}`),
  field_invalid: row(400, (field: string, problem: string) => `${field} ${problem}`),
  invalid_json_too_deep: row(400, (levels: number) => `Invalid JSON body: nested deeper than ${levels} levels`),
  invalid_json: row(400, (problem: string) => `Invalid JSON body: ${problem}`),
  // Credentials as the HTTP layer reads them (headers, the dashboard's session cookie).
  authorization_not_oauth: row(401, 'Authorization header must be "OAuth <token>"'),
  session_needs_token: row(401, 'POST /ui/session needs "Authorization: OAuth <token>"'),
  session_needs_header: row(401, (header: string) => `POST /ui/session needs the ${header} header`),
  session_cookie_twice: row(401, 'More than one session cookie: sign in again'),
  session_cookie_needs_header: row(
    403,
    (header: string) => `A request signed in by the dashboard's session cookie needs the ${header} header`,
  ),
  // The controller's own readiness (GET /ready).
  controller_draining: row(503, 'shutting down: this controller takes no new work'),
  redis_cannot_take_commands: row(503, (problem: string) => `Redis cannot take commands: ${problem}`),
} as const;

// ---- auth: identity, tokens, projects, quotas ----------------------------------------------
export const AUTH_ERRORS = {} as const;

// ---- cache ---------------------------------------------------------------------------------
export const CACHE_ERRORS = {} as const;

// ---- mq: queues, messages, subscribers -----------------------------------------------------
export const MQ_ERRORS = {} as const;

// ---- worker: codes, tasks, schedules, clusters, runners ------------------------------------
export const WORKER_ERRORS = {} as const;

// ---- runner API: the /1/runner routes remote runners call ---------------------------------
export const RUNNER_ERRORS = {
  runner_token_missing: row(401, 'The runner API needs "Authorization: Bearer <runner token>"'),
  runner_token_invalid: row(401, 'Invalid or revoked runner token'),
  runner_token_other_cluster: row(
    403,
    (granted: string, asked: string) => `This runner token is for cluster ${granted}, not ${asked}`,
  ),
  runner_token_other_instance: row(
    403,
    (granted: string, asked: string) => `This runner token is for instance ${granted}, not ${asked}`,
  ),
  instance_not_registered: row(
    409,
    (instanceId: string) => `Instance ${instanceId} is not registered: heartbeat first`,
  ),
  task_not_held: row(403, (taskId: string) => `This runner does not hold task ${taskId}`),
  held_task_not_found: row(404, (taskId: string) => `Task ${taskId} not found`),
  task_revision_gone: row(
    404,
    (codeName: string, rev: number) => `Code package ${codeName} revision ${rev} no longer exists`,
  ),
  task_image_other: row(
    403,
    (taskId: string, image: string, asked: string) => `Task ${taskId} runs image ${image}, not ${asked}`,
  ),
  task_cannot_start: row(409, (taskId: string, status: string) => `Task ${taskId} cannot start: it is ${status}`),
  log_chunk_not_octet_stream: row(409, 'A log chunk is sent as application/octet-stream'),
} as const;

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
