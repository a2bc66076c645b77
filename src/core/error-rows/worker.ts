import { row } from './row.js';

/** The error table's worker rows: codes, tasks, schedules, clusters, runners. */
export const WORKER_ERRORS = {
  task_not_found: row(404, 'Task not found'),
  task_times_reversed: row(400, 'from_time must not be after to_time'),
  task_progress_empty: row(400, 'percent or msg is required'),
  task_json_required: row(406, 'Content-Type: application/json is required'),
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
  cluster_runners_min_over_max: row(
    400,
    (min: number, max: number) => `autoscale.runners_min (${min}) must not exceed autoscale.runners_max (${max})`,
  ),
  cluster_aws_settings_misplaced: row(
    400,
    (provider: string) => `autoscale.aws applies only to autoscale.provider aws, not ${provider}`,
  ),
  cluster_aws_settings_missing: row(406, 'autoscale.aws is required for autoscale.provider aws'),
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
  code_env_var_bad_name: row(400, (name: string) => `env_vars name "${name}" must be letters, digits and _`),
  code_unknown_runtime: row(
    400,
    (known: string[], runtime: string) => `runtime must be one of: ${known.join(', ')} (got "${runtime}")`,
  ),
  code_image_and_stack: row(400, 'stack is not supported for custom images: give image or stack, not both'),
  code_unknown_stack: row(400, (known: string[]) => `stack must be one of: ${known.join(', ')}`),
  code_stack_without_zip: row(400, 'stack is for zip packages: add the code zip as "file"'),
  code_image_or_stack_missing: row(406, 'image or stack is required'),
  code_command_missing: row(406, 'command is required for zip packages (or file_name and runtime)'),
  code_stats_dates_reversed: row(400, 'start_date must not be after end_date'),
} as const;
