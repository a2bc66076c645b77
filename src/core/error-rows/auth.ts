import { row } from './row.js';

/** The error table's auth rows: identity, tokens, projects, quotas. */
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
  // users
  user_not_found: row(404, 'User not found'),
  user_not_found_by_id: row(404, (id: string) => `User not found: ${id}`),
  email_invalid: row(400, (email: string) => `email "${email}" is not a valid e-mail address`),
  email_taken: row(409, (email: string) => `email ${email} is already taken`),
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
