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
export const AUTH_ERRORS = {} as const;

// ---- cache ---------------------------------------------------------------------------------
export const CACHE_ERRORS = {} as const;

// ---- mq: queues, messages, subscribers -----------------------------------------------------
export const MQ_ERRORS = {} as const;

// ---- worker: codes, tasks, schedules, clusters, runners ------------------------------------
export const WORKER_ERRORS = {} as const;

// ---- runner API: the /1/runner routes remote runners call ---------------------------------
export const RUNNER_ERRORS = {} as const;

// ---- functions: apps, routes, calls --------------------------------------------------------
export const FUNCTIONS_ERRORS = {
  fn_app_not_found: row(404, 'App not found'),
  fn_route_not_found: row(404, 'Route not found'),
  fn_call_not_found: row(404, 'Call not found'),
  fn_app_exists: row(409, (name: string) => `App "${name}" already exists`),
  fn_route_exists: row(409, (path: string) => `Route ${path} already exists`),
  fn_app_has_routes: row(409, 'Cannot remove an app that has routes: delete its routes first'),
  fn_app_name_immutable: row(400, 'app.name is immutable'),
  fn_route_path_immutable: row(400, 'route.path is immutable: delete the route and create another'),
  fn_route_image_required: row(400, 'route.image is required'),
  fn_project_required_none: row(400, 'project_id is required: this user has no project to put the app in'),
  fn_project_required_several: row(
    400,
    'project_id is required: this user has several projects (give app.project_id or ?project_id=)',
  ),
  fn_app_name_invalid: row(400, 'app name must be 1 to 30 characters of letters, digits, "_" and "-"'),
  fn_route_path_invalid: row(
    400,
    'route path must be absolute ("/name"), of segments made of letters, digits and "._~-", without a trailing "/"',
  ),
  fn_route_path_dot_segments: row(400, 'route path may not have "." or ".." segments'),
  fn_route_image_invalid: row(400, 'route image must be a container image reference such as "name:tag"'),
  fn_route_memory_range: row(400, (min: number, max: number) => `route memory must be from ${min} to ${max} MiB`),
  fn_route_seconds_range: row(400, (field: string, max: number) => `route ${field} must be from 1 to ${max} seconds`),
  fn_route_concurrency_range: row(400, (max: number) => `route max_concurrency must be from 1 to ${max}`),
  fn_route_secret_too_short: row(400, (min: number) => `route secret must be at least ${min} characters`),
  fn_route_secret_too_long: row(400, (max: number) => `route secret must be at most ${max} characters`),
  fn_config_key_invalid: row(
    400,
    (field: string, key: string) =>
      `${field} key "${key}" must be a variable name: letters, digits and "_", not starting with a digit`,
  ),
  fn_config_value_too_long: row(
    400,
    (field: string, key: string, max: number) => `${field} value of "${key}" is longer than ${max} characters`,
  ),
  fn_route_header_name_invalid: row(400, (name: string) => `route headers: "${name}" is not a valid header name`),
  fn_route_header_value_invalid: row(
    400,
    (name: string) => `route headers: the value of "${name}" must not contain line breaks`,
  ),
  fn_authorization_scheme: row(401, 'Authorization header must be "OAuth <token>" or "Bearer <token>"'),
  fn_route_secret_required: row(
    401,
    'This route requires "Authorization: Bearer <token>", a JWT signed with the route secret',
  ),
  fn_route_token_invalid: row(401, (reason: string) => `Invalid token: ${reason}`),
  fn_call_project_suspended: row(403, 'Project suspended: the call was not run'),
  fn_origin_calls_only: row(404, 'This origin serves function calls (/r/) only'),
} as const;

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
