import { row } from './row.js';

/** The error table's functions rows: apps, routes, calls. */
export const FUNCTIONS_ERRORS = {
  // The functions API answers a missing field 400, where the iron APIs answer 406 (field_required).
  fn_field_required: row(400, (field: string) => `${field} is required`),
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
