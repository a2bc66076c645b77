import type { FastifyRequest } from 'fastify';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/core/json-depth.js';
import { isHttpError, fail } from '../../src/core/errors.js';
import { ANY_BUT_NULL, dropNullFields } from '../../src/core/null-fields.js';
import type { Upload } from '../../src/worker/codes/code-store.js';
import { LIMITS, type CodeSettings } from '../../src/worker/types.js';
import type { ZipLimits } from '../../src/core/config.js';
import { checkZip } from '../../src/worker/codes/archives/zip.js';
import { runtimeCommand } from '../../src/worker/codes/runtime-commands.js';

interface Form {
  data?: string;
  file?: Buffer;
}

/** Reads the multipart form of a code upload: the `data` field and the optional `file`. */
/** A JSON body is the `data` part alone: how the Ruby client's `codes_register` registers an image. */
function isJsonRegistration(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
}

async function readForm(request: FastifyRequest, maxCodeBytes: number): Promise<Form> {
  if (isJsonRegistration(request)) return { data: request.emptyJsonBody ? '' : JSON.stringify(request.body) };
  if (!request.isMultipart()) throw fail('code_upload_content_type');
  const form: Form = {};
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') throw fail('code_upload_file_field', part.fieldname);
        form.file = await part.toBuffer();
      } else if (part.fieldname === 'data') {
        form.data = String(part.value);
      }
    }
  } catch (error) {
    if (isHttpError(error)) throw error;
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) throw fail('code_upload_too_large', maxCodeBytes);
    throw fail('code_upload_bad_multipart', (error as Error).message);
  }
  return form;
}

function optionalString(data: Record<string, unknown>, field: string): string | undefined {
  const value = data[field];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw fail('code_field_not_string', field);
  return value;
}

function optionalInteger(data: Record<string, unknown>, field: string, min: number, max: number): number | undefined {
  const value = data[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw fail('code_field_not_integer', field);
  if (value < min || value > max) throw fail('code_field_out_of_range', field, min, max);
  return value;
}

function envVarsOf(data: Record<string, unknown>): Record<string, string> | undefined {
  const value = data.env_vars;
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw fail('code_env_vars_not_object');
  for (const [name, item] of Object.entries(value)) {
    if (typeof item !== 'string') throw fail('code_env_var_not_string', name);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw fail('code_env_var_bad_name', name);
  }
  return value as Record<string, string>;
}

/** The `data` part's fields are checked below; a null among them (or among env_vars) is not given. */
const DATA_FIELDS = {
  type: 'object',
  properties: { env_vars: { ...ANY_BUT_NULL, additionalProperties: ANY_BUT_NULL } },
  additionalProperties: ANY_BUT_NULL,
} as const;

function parseData(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') throw fail('code_data_missing');
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw fail('code_data_too_deep', MAX_JSON_DEPTH);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw fail('code_data_not_json', (error as Error).message);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw fail('code_data_not_object');
  return dropNullFields(data as Record<string, unknown>, DATA_FIELDS);
}

export interface StackSettings {
  stacks: Record<string, string>;
  defaultStack: string;
  /** Runtime → stack, for zip packages that name a runtime and no stack. */
  runtimes: Record<string, string>;
}

function runtimeOf(data: Record<string, unknown>, runtimes: Record<string, string>): string | undefined {
  const runtime = optionalString(data, 'runtime');
  if (runtime !== undefined && !(runtime in runtimes))
    throw fail('code_unknown_runtime', Object.keys(runtimes).sort(), runtime);
  return runtime;
}

/**
 * The stack of a zip package: the one it names, else its runtime's, else the default one
 * (old clients upload zips naming only a runtime).
 */
function zipStackOf(
  runtime: string | undefined,
  { runtimes, stacks, defaultStack }: StackSettings,
): string | undefined {
  if (runtime) return runtimes[runtime];
  return defaultStack in stacks ? defaultStack : undefined;
}

/** Checks every `data` field against the spec's rules and builds the upload. */
export function uploadFrom(
  dataText: string | undefined,
  zip: Buffer | undefined,
  stackSettings: StackSettings,
): Upload {
  const { stacks } = stackSettings;
  const data = parseData(dataText);
  const name = optionalString(data, 'name');
  if (!name) throw fail('code_name_missing');
  if (name.length > 255) throw fail('code_name_too_long');
  const image = optionalString(data, 'image');
  const runtime = runtimeOf(data, stackSettings.runtimes);
  const stack = optionalString(data, 'stack') ?? (zip && !image ? zipStackOf(runtime, stackSettings) : undefined);
  if (image && stack) throw fail('code_image_and_stack');
  if (stack && !(stack in stacks)) throw fail('code_unknown_stack', Object.keys(stacks).sort());
  if (stack && !zip) throw fail('code_stack_without_zip');
  if (!image && !stack) throw fail(zip ? 'code_image_or_stack_missing' : 'code_image_missing');
  const config = optionalString(data, 'config');
  if (config !== undefined && Buffer.byteLength(config) > LIMITS.configBytes)
    throw fail('code_config_too_large', LIMITS.configBytes);
  const fileName = optionalString(data, 'file_name');
  const command = optionalString(data, 'command') ?? (zip && fileName ? runtimeCommand(fileName, runtime) : undefined);
  if (zip && !command) throw fail('code_command_missing');
  const settings: CodeSettings = {
    image,
    stack,
    runtime,
    file_name: fileName,
    command,
    config,
    max_concurrency: optionalInteger(data, 'max_concurrency', 1, 100000),
    retries: optionalInteger(data, 'retries', 0, LIMITS.maxRetries),
    retries_delay: optionalInteger(data, 'retries_delay', 0, 7 * 24 * 3600),
    priority: optionalInteger(data, 'default_priority', 0, 2),
    env_vars: envVarsOf(data),
  };
  for (const key of Object.keys(settings) as (keyof CodeSettings)[])
    if (settings[key] === undefined) delete settings[key];
  return { name, settings, zip };
}

export async function readUpload(
  request: FastifyRequest,
  maxCodeBytes: number,
  stacks: StackSettings,
  zipLimits: ZipLimits,
): Promise<Upload> {
  const form = await readForm(request, maxCodeBytes);
  if (form.file && form.file.length === 0) form.file = undefined;
  const upload = uploadFrom(form.data, form.file, stacks);
  if (upload.zip) await checkZip(upload.zip, zipLimits);
  return upload;
}
