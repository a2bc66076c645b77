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
export const MQ_ERRORS = {
  // messages
  mq_queue_not_found: row(404, 'Queue not found'),
  mq_message_not_found: row(404, (about: string) => `Message not found${about}`),
  mq_message_reserved: row(403, (about: string) => `Message is reserved; its reservation_id is required${about}`),
  mq_message_not_reserved: row(403, (about: string) => `Message is not reserved${about}`),
  mq_reservation_timed_out: row(403, (about: string) => `Reservation timed out${about}`),
  mq_too_many_messages: row(
    400,
    (most: number, got: number) => `messages: at most ${most} messages per request, got ${got}`,
  ),
  mq_acknowledge_needs_reservation: row(
    406,
    'reservation_id is required to acknowledge a push delivery (subscriber_name is given)',
  ),
  mq_reservation_id_required: row(406, 'reservation_id is required'),
  mq_reservation_id_empty: row(400, 'reservation_id must not be empty'),
  mq_clear_needs_body: row(400, 'Clearing a queue needs the JSON body {}; to delete messages give "ids"'),
  mq_release_needs_body: row(400, 'a JSON body is required (send {} when there is nothing to set)'),
  mq_push_headers_not_object: row(400, (field: string) => `${field} must be an object of strings`),
  mq_too_many_push_headers: row(400, (field: string, most: number) => `${field} must have at most ${most} headers`),
  mq_header_problem: row(400, (field: string, name: string, problem: string) => `${field} "${name}": ${problem}`),
  // fields of bodies read by hand
  mq_out_of_range: row(400, (field: string, min: number, max: number) => `${field} must be between ${min} and ${max}`),
  mq_too_small: row(400, (field: string, min: number) => `${field} must be at least ${min}`),
  mq_not_an_object: row(400, (field: string) => `${field} must be an object`),
  mq_not_an_integer: row(400, (field: string) => `${field} must be an integer`),
  mq_not_a_string: row(400, (field: string) => `${field} must be a string`),
  mq_not_a_list: row(400, (field: string) => `${field} must be a list`),
  mq_field_required: row(406, (field: string) => `${field} is required`),
  mq_field_empty: row(400, (field: string) => `${field} must not be empty`),
  mq_queue_name_too_long: row(400, (field: string, most: number) => `${field} must be at most ${most} bytes`),
  mq_queue_name_characters: row(400, (field: string) => `${field} must not contain '/' or control characters`),
  // queues
  mq_queue_save_contended: row(503, 'The queue is being changed by other requests; try again'),
  mq_legacy_subscribers: row(400, (field: string, moved: string) => `${field} is not read here: ${moved}`),
  mq_queue_type_unknown: row(400, (types: string) => `queue.type must be one of: ${types}`),
  mq_queue_type_change: row(
    400,
    (type: string) => `queue.type cannot be changed after creation (the queue is ${type})`,
  ),
  mq_push_on_pull_queue: row(400, (exists: boolean) =>
    exists ? 'queue.push cannot be set on a pull queue' : 'queue.push is not allowed on a pull queue',
  ),
  mq_dead_letter_on_push_queue: row(
    400,
    'queue.dead_letter is not allowed on a push queue; use queue.push.error_queue',
  ),
  mq_alerts_setting_on_push_queue: row(400, 'queue.alerts cannot be set on a push queue'),
  mq_dead_letter_name_empty: row(400, 'queue.dead_letter.queue_name must be a non-empty string'),
  mq_dead_letter_self: row(400, 'queue.dead_letter.queue_name must name another queue'),
  mq_push_rate_not_positive: row(400, 'queue.push.rate must be a positive number'),
  mq_push_subscribers_required: row(406, 'queue.push.subscribers is required for a push queue'),
  mq_push_subscribers_empty: row(400, 'queue.push.subscribers must hold at least one subscriber'),
  mq_subscriber_name_twice: row(400, (at: string, name: string) => `${at}.name "${name}" is given twice`),
  mq_url_not_absolute: row(400, (field: string) => `${field} must be an absolute URL`),
  mq_url_scheme: row(
    400,
    (field: string) => `${field} must be an http or https URL, or ironmq:///<queue> or ironworker:///<code>`,
  ),
  mq_subscribers_need_push_queue: row(400, 'Subscribers can only be changed on a push queue'),
  mq_push_queue_needs_subscriber: row(400, 'A push queue must keep at least one subscriber'),
  mq_v1_subscribers_too_big: row(400, (kb: number) => `subscribers must be at most ${kb} KB as JSON`),
  mq_v1_subscriber_url_twice: row(400, (index: number) => `subscribers[${index}].url is given twice`),
  mq_v1_subscribers_on_pull_queue: row(400, 'subscribers apply to push queues only (push_type multicast or unicast)'),
  mq_v1_retries_on_pull_queue: row(
    400,
    'retries and retries_delay apply to push queues only (push_type multicast or unicast)',
  ),
  mq_v1_alerts_on_push_queue: row(400, "alerts are not allowed on push queues: remove the queue's alerts first"),
  mq_v1_dead_letter_on_push_queue: row(
    400,
    "dead_letter is not allowed on push queues: remove the queue's dead_letter first",
  ),
  mq_v1_subscribers_required: row(406, 'subscribers is required to make a push queue'),
  mq_v1_subscribers_empty: row(400, 'subscribers must hold at least one subscriber on a push queue'),
  // alerts
  mq_alerts_on_push_queue: row(400, 'alerts cannot be set on a push queue'),
  mq_too_many_alerts: row(400, (most: number) => `a queue can have at most ${most} alerts`),
  mq_alert_targets_itself: row(400, (index: number) => `alerts[${index}].queue must name another queue`),
  mq_alert_twice: row(
    400,
    (index: number) => `alerts[${index}] duplicates another alert (same type, trigger, direction and queue)`,
  ),
  mq_alert_already_there: row(400, (index: number) => `alerts[${index}] duplicates an alert the queue has`),
  mq_alert_not_found: row(404, (id: string) => `Alert not found: ${id}`),
  mq_alert_type: row(400, (at: string) => `${at}.type must be one of: fixed, progressive`),
  mq_alert_direction: row(400, (at: string) => `${at}.direction must be one of: asc, desc`),
  // push
  mq_push_queues_only: row(400, 'Push statuses and acknowledgements apply to push queues only'),
  mq_push_message_not_found: row(404, (subscriber: string) => `Message not found for subscriber "${subscriber}"`),
  mq_subscriber_not_found: row(404, (id: string) => `Subscriber not found: ${id}`),
  mq_internal_url_form: row(
    400,
    (field: string, form: string) => `${field} must be written ${form} (three slashes, no query or fragment)`,
  ),
  mq_internal_url_elsewhere: row(
    400,
    (field: string, scheme: string, form: string) =>
      `${field}: ${scheme} subscribers reach this project only; write ${form} with no token, host or project`,
  ),
  mq_internal_url_escape: row(400, (field: string) => `${field} has a malformed %-escape in its name`),
  mq_code_name_too_long: row(400, (field: string, most: number) => `${field} must be at most ${most} characters`),
  mq_self_push: row(400, (url: string) => `a queue cannot push to itself: ${url} is this queue`),
  mq_push_loop: row(400, (path: string) => `push subscribers would loop back to this queue: ${path}`),
} as const;

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
  task_progress_when_ended: row(
    400,
    (status: string) => `Progress is for queued or running tasks: this one is ${status}`,
  ),
  task_log_not_running: row(409, (taskId: string) => `Task ${taskId} is no longer running on this runner: log refused`),
  task_log_out_of_order: row(
    409,
    (seq: number, next: number) => `Log chunk ${seq} is out of order: the next one is ${next}`,
  ),
  task_token_other_task: row(403, 'A task token reports progress only for its own task'),
  schedule_not_found: row(404, 'Schedule not found'),
  schedule_limit_reached: row(
    403,
    (max: number) => `Resource limits reached: the project may have at most ${max} active schedules`,
  ),
  schedule_never_runs: row(400, (field: string) => `${field}cron: the schedule would never run (no run before end_at)`),
  schedule_bad_cron: row(400, (reason: string) => `cron is not a valid cron expression: ${reason}`),
  schedule_unknown_timezone: row(400, (timezone: string) => `timezone is not a known time zone: ${timezone}`),
  schedule_time_out_of_range: row(
    400,
    (field: string) => `${field} must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z`,
  ),
  schedule_cron_too_frequent: row(400, (seconds: number) => `cron runs must be at least ${seconds} seconds apart`),
  schedule_run_every_too_long: row(
    400,
    (field: string, max: number) => `${field}run_every must be at most ${max} seconds (ten years)`,
  ),
  schedule_run_every_and_cron: row(400, 'Give either run_every or cron, not both'),
  schedule_timezone_without_cron: row(400, 'timezone applies only to cron'),
  schedule_run_every_too_short: row(400, (seconds: number) => `run_every must be at least ${seconds} seconds`),
  schedule_ends_before_start: row(400, 'end_at must not be before start_at'),
  cluster_update_contended: row(409, (id: string) => `Cluster ${id} is being changed by other requests; try again`),
  cluster_name_missing: row(406, 'name is required'),
  cluster_name_empty: row(400, 'name must not be empty'),
  cluster_runners_min_over_max: row(
    400,
    (min: number, max: number) => `autoscale.runners_min (${min}) must not exceed autoscale.runners_max (${max})`,
  ),
  cluster_aws_settings_misplaced: row(
    400,
    (provider: string) => `autoscale.aws applies only to autoscale.provider aws, not ${provider}`,
  ),
  cluster_aws_settings_missing: row(406, 'autoscale.aws is required for autoscale.provider aws'),
  cluster_aws_field_missing: row(406, (field: string) => `autoscale.aws.${field} is required`),
  cluster_docker_auth_missing: row(406, 'autoscale.docker_auth is required'),
  cluster_docker_email_missing: row(406, 'autoscale.docker_email is required'),
  cluster_provider_operators_only: row(
    403,
    (provider: string, allowed: readonly string[]) =>
      `autoscale.provider ${provider} is for operators only (admin tokens); allowed for tenants: ${allowed.join(', ')}`,
  ),
  cluster_tenant_runners_over_cap: row(
    400,
    (field: string, cap: number) => `autoscale.${field} must be at most ${cap} for tenant clusters`,
  ),
  credentials_auth_not_base64_json: row(
    400,
    'auth must be base64 of a JSON object with username, password, email and serveraddress',
  ),
  credentials_auth_not_object: row(400, 'auth must encode a JSON object'),
  credentials_auth_field_missing: row(406, (name: string) => `auth.${name} is required`),
  credentials_auth_field_not_string: row(400, (name: string) => `auth.${name} must be a string`),
  code_revision_not_found: row(404, (rev: number, name: string) => `Revision ${rev} of code package ${name} not found`),
  code_zip_refused: row(400, (reason: string) => reason),
  code_zip_invalid: row(400, (reason: string) => `file is not a valid zip archive: ${reason}`),
  code_upload_content_type: row(
    400,
    'Content-Type must be multipart/form-data with a "data" field, or application/json',
  ),
  code_upload_file_field: row(400, (field: string) => `unexpected file field "${field}": the zip goes in "file"`),
  code_upload_too_large: row(413, (max: number) => `file must be at most ${max} bytes`),
  code_upload_bad_multipart: row(400, (reason: string) => `Invalid multipart body: ${reason}`),
  code_field_not_string: row(400, (field: string) => `${field} must be a string`),
  code_field_not_integer: row(400, (field: string) => `${field} must be an integer`),
  code_field_out_of_range: row(
    400,
    (field: string, min: number, max: number) => `${field} must be between ${min} and ${max}`,
  ),
  code_env_vars_not_object: row(400, 'env_vars must be an object of strings'),
  code_env_var_not_string: row(400, (name: string) => `env_vars.${name} must be a string`),
  code_env_var_bad_name: row(400, (name: string) => `env_vars name "${name}" must be letters, digits and _`),
  code_data_missing: row(406, 'data is required'),
  code_data_too_deep: row(400, (depth: number) => `data must not nest deeper than ${depth} levels`),
  code_data_not_json: row(400, (reason: string) => `data must be JSON: ${reason}`),
  code_data_not_object: row(400, 'data must be a JSON object'),
  code_unknown_runtime: row(
    400,
    (known: string[], runtime: string) => `runtime must be one of: ${known.join(', ')} (got "${runtime}")`,
  ),
  code_name_missing: row(406, 'name is required'),
  code_name_too_long: row(400, 'name must be at most 255 characters'),
  code_image_and_stack: row(400, 'stack is not supported for custom images: give image or stack, not both'),
  code_unknown_stack: row(400, (known: string[]) => `stack must be one of: ${known.join(', ')}`),
  code_stack_without_zip: row(400, 'stack is for zip packages: add the code zip as "file"'),
  code_image_or_stack_missing: row(406, 'image or stack is required'),
  code_image_missing: row(406, 'image is required'),
  code_config_too_large: row(400, (max: number) => `config must be at most ${max} bytes`),
  code_command_missing: row(406, 'command is required for zip packages (or file_name and runtime)'),
  code_stats_dates_reversed: row(400, 'start_date must not be after end_date'),
} as const;

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
