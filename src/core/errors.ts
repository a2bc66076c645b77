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
export const WORKER_ERRORS = {
  task_not_found: row(404, 'Task not found'),
  task_times_reversed: row(400, 'from_time must not be after to_time'),
  task_progress_empty: row(400, 'percent or msg is required'),
  task_json_required: row(406, 'Content-Type: application/json is required'),
  task_payload_too_large: row(400, (field: string, max: number) => `${field} must be at most ${max} bytes`),
  code_not_found: row(404, 'Code package not found'),
  code_name_not_found: row(404, (name: string) => `Code package not found: ${name}`),
  task_cluster_not_usable: row(
    400,
    (clusterId: string, defaultCluster: string) =>
      `cluster "${clusterId}" is neither "${defaultCluster}" nor a cluster this project's owner may use`,
  ),
  cluster_not_found: row(404, (id: string) => `Cluster ${id} not found`),
  cluster_default_unchangeable: row(403, 'The default cluster cannot be changed'),
  cluster_owner_only: row(403, (id: string) => `Only the owner of cluster ${id} may change it`),
  cluster_runner_tokens_owner_only: row(
    403,
    (id: string) => `Only the owner of cluster ${id} may manage its runner tokens`,
  ),
  cluster_runners_owner_only: row(403, (id: string) => `Only the owner of cluster ${id} may list its runners`),
  cluster_tenant_cap_reached: row(
    403,
    (owned: number) =>
      `you own ${owned} clusters, the most a tenant may (FERRUM_CLUSTER_TENANT_MAX_CLUSTERS): delete one first`,
  ),
  cluster_has_instances: row(
    409,
    (id: string, count: number) => `Cluster ${id} still has ${count} instances: terminate them first`,
  ),
  cluster_runner_tokens_full: row(
    403,
    (id: string, cap: number) =>
      `cluster ${id} has ${cap} runner tokens, the most allowed (FERRUM_CLUSTER_MAX_RUNNER_TOKENS): revoke one first`,
  ),
  cluster_runner_token_not_found: row(
    404,
    (id: string, tokenId: string) => `Cluster ${id} has no runner token ${tokenId}`,
  ),
  cluster_share_unknown_user: row(400, (name: string) => `shared_to: no user "${name}"`),
  schedule_bad_time: row(400, (field: string) => `${field} must be a date-time (RFC 3339)`),
  code_zip_pruned: row(
    404,
    (rev: number, name: string) =>
      `Revision ${rev} of code package ${name}: its zip was deleted, only the newest revisions keep theirs (FERRUM_WORKER_REVISIONS_KEPT)`,
  ),
  code_image_has_no_zip: row(
    404,
    (rev: number, name: string) => `Revision ${rev} of code package ${name} is an image package: it has no zip`,
  ),
} as const;

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
