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
  // who is calling
  token_not_provided: row(401, 'Token not provided'),
  invalid_token: row(401, 'Invalid token'),
  legacy_token_refused: row(
    401,
    'Credentials of the earlier API generation are not accepted by version 3; create a new token',
  ),
  user_suspended: row(403, 'User suspended'),
  sign_in_failed: row(401, 'Invalid e-mail or password'),
  too_many_sign_ins: row(429, (seconds: number) => `Too many sign-in attempts; try again in ${seconds} s`),
  // users
  user_not_found: row(404, 'User not found'),
  user_not_found_by_id: row(404, (id: string) => `User not found: ${id}`),
  email_invalid: row(400, (email: string) => `email "${email}" is not a valid e-mail address`),
  email_taken: row(409, (email: string) => `email ${email} is already taken`),
  password_empty: row(400, 'password must not be empty'),
  password_too_long: row(400, 'password must be at most 1024 characters'),
  create_users_admin_only: row(403, 'Only admin tokens may create users'),
  list_users_admin_only: row(403, 'Only admin tokens may list users'),
  change_email_admin_only: row(403, 'Only admin tokens may change an e-mail address'),
  change_user_status_admin_only: row(403, 'Only admin tokens may change a user status'),
  // tokens
  token_not_found: row(404, 'Token not found'),
  token_value_taken: row(409, 'token value is already in use'),
  token_of_another_user: row(403, 'This token belongs to another user'),
  tokens_for_others_admin_only: row(403, 'Only admin tokens may create tokens for other users'),
  admin_tokens_admin_only: row(403, 'Only admin tokens may create admin tokens'),
  list_others_tokens_admin_only: row(403, "Only admin tokens may list other users' tokens"),
  tokens_per_user_reached: row(
    403,
    (cap: number) => `you have ${cap} tokens, the most a user may (FERRUM_MAX_TOKENS_PER_USER): delete one first`,
  ),
  // projects
  project_not_found: row(404, 'Project not found'),
  project_exists: row(409, (id: string) => `project ${id} already exists`),
  project_id_invalid: row(400, 'id must be 1-64 of [A-Za-z0-9_-]'),
  project_id_of_deleted: row(
    409,
    (id: string) => `project id ${id} belonged to a deleted project; ids are never reused`,
  ),
  project_suspended: row(403, 'Project suspended'),
  no_project_access: row(403, 'This token has no access to the project'),
  owner_only: row(403, 'Only the owner may do this'),
  choose_owner_admin_only: row(403, 'Only admin tokens may choose a project owner or id'),
  project_settings_admin_only: row(403, 'Only admin tokens may change a project status, max_schedules or quotas'),
  projects_per_user_reached: row(
    403,
    (cap: number) => `you own ${cap} projects, the most a user may (FERRUM_MAX_PROJECTS_PER_USER): delete one first`,
  ),
  owner_cannot_leave: row(400, 'The owner cannot leave its own project: delete it instead'),
  project_not_shared: row(404, 'This project is not shared with you'),
  share_list_missing: row(406, 'user_id list is required'),
  share_list_not_list: row(400, 'user_ids must be a list'),
  share_id_not_string: row(400, 'each user_id must be a non-empty string'),
  // quotas: `setting` is the FERRUM_PROJECT_MAX_* variable giving the default
  count_quota_reached: row(
    403,
    (name: string, limit: number, what: string, setting: string) =>
      `quota ${name} reached: the project may have at most ${limit} ${what} (${setting}, or the project's quotas.${name}); delete one first`,
  ),
  byte_quota_reached: row(
    413,
    (name: string, limit: number, what: string, setting: string) =>
      `quota ${name} reached: ${what} may hold at most ${limit} bytes (${setting}, or the project's quotas.${name}); delete something first`,
  ),
} as const;

// ---- cache ---------------------------------------------------------------------------------
export const CACHE_ERRORS = {
  cache_name_reserved: row(400, 'cache name must not be empty, "." or ".."'),
  cache_name_too_long: row(400, (max: number) => `cache name must be at most ${max} bytes`),
  cache_name_unsafe: row(400, 'cache name must not contain "/" or control characters'),
  cache_not_found: row(404, 'Cache not found'),
  item_key_empty: row(400, 'key must not be empty'),
  item_key_missing_in_path: row(400, 'key must not be empty: items are addressed as /items/{key}'),
  item_key_too_long: row(400, (max: number) => `key must be at most ${max} bytes`),
  item_value_null: row(400, 'value must not be null'),
  item_value_too_large: row(413, (bytes: number, max: number) => `value is ${bytes} bytes; the limit is ${max} bytes`),
  item_not_found: row(404, 'Item not found'),
  put_add_and_replace: row(400, 'add and replace cannot both be true'),
  put_cas_with_add: row(400, 'cas cannot be combined with add: cas needs an existing item'),
  put_cas_invalid: row(400, 'cas must be a positive integer, as returned by a get'),
  put_cas_item_missing: row(404, 'Item not found: cas stores only keys that are in the cache'),
  put_cas_mismatch: row(409, 'cas mismatch: the item has changed since that cas was read'),
  increment_amount_invalid: row(
    400,
    `amount must be an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
  ),
  increment_not_numeric: row(400, 'Cannot increment: the value is not a number'),
  increment_not_integer: row(400, 'Cannot increment: the value is not an integer'),
  increment_out_of_range: row(400, 'Cannot increment: the value is not an integer in the 64-bit signed range'),
  increment_overflow: row(400, 'Cannot increment: the result would overflow the 64-bit signed integer range'),
} as const;

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
