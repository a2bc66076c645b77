import type { FromSchema } from 'json-schema-to-ts';
import { TASK_BOUNDS } from '../tasks/task-admission.js';
import { LIMITS } from '../types.js';

/**
 * The JSON schema of a code upload's `data` part (the spec's fields): types and ranges, so a
 * refusal is one of the generic field rows (the API validates it as it validates bodies,
 * api/worker-v2/code-upload.ts). upload-rules.ts keeps only what a schema cannot say: an empty
 * text is not given, env var names, which stack and command a package gets, config in bytes.
 */
export const UPLOAD_DATA_SCHEMA = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', maxLength: 255 },
    image: { type: 'string' },
    stack: { type: 'string' },
    runtime: { type: 'string' },
    file_name: { type: 'string' },
    command: { type: 'string' },
    config: { type: 'string' },
    max_concurrency: { type: 'integer', minimum: 1, maximum: 100000 },
    retries: { type: 'integer', minimum: 0, maximum: LIMITS.maxRetries },
    retries_delay: { type: 'integer', minimum: 0, maximum: 7 * 24 * 3600 },
    default_priority: { type: 'integer', ...TASK_BOUNDS.priority },
    env_vars: { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const;

/** A code upload's `data` part, as its schema admits it. */
export type UploadData = FromSchema<typeof UPLOAD_DATA_SCHEMA>;
