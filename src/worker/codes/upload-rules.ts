import { integerField, stringField } from '../../core/body-fields.js';
import { fail } from '../../core/errors.js';
import { ownEntry } from '../../core/own-entry.js';
import { refuseLoneSurrogates } from '../../core/well-formed.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../core/json-depth.js';
import { ANY_BUT_NULL, dropNullFields } from '../../core/null-fields.js';
import { TASK_BOUNDS } from '../tasks/task-admission.js';
import { LIMITS, type CodeSettings } from '../types.js';
import type { Upload } from './code-store.js';
import { runtimeCommand } from './runtime-commands.js';

/** A code upload as a client sends it: the `data` part's JSON text and the zip, if any. */
export interface UploadForm {
  data?: string;
  file?: Buffer;
}

// The rules of a code upload's `data` part (the spec's fields): what each may be, which stack
// and command a package gets when it names none. The API reads the form; this checks it.

function optionalString(data: Record<string, unknown>, field: string): string | undefined {
  const value = data[field];
  if (value === undefined || value === '') return undefined;
  return stringField(value, field);
}

function optionalInteger(data: Record<string, unknown>, field: string, min: number, max: number): number | undefined {
  const value = data[field];
  if (value === undefined) return undefined;
  return integerField(value, field, min, max);
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
  if (text === undefined || text.trim() === '') throw fail('field_required', 'data');
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw fail('code_data_too_deep', MAX_JSON_DEPTH);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw fail('code_data_not_json', (error as Error).message);
  }
  refuseLoneSurrogates(text, data, 'data');
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw fail('code_data_not_object');
  return dropNullFields(data as Record<string, unknown>, DATA_FIELDS);
}

export interface StackSettings {
  stacks: Record<string, string>;
  defaultStack: string;
  /** Runtime → stack, for zip packages that name a runtime and no stack. */
  runtimes: Record<string, string>;
  /** Runtime `sh` runs on the stack of the runtime its script starts (false: the operator pinned `sh`). */
  shellFollowsScript: boolean;
}

function runtimeOf(data: Record<string, unknown>, runtimes: Record<string, string>): string | undefined {
  const runtime = optionalString(data, 'runtime');
  if (runtime !== undefined && !Object.hasOwn(runtimes, runtime))
    throw fail('code_unknown_runtime', Object.keys(runtimes).sort(), runtime);
  return runtime;
}

/**
 * The stack of a zip package that names none: for runtime `sh`, the stack of the runtime its
 * script starts (`startedBy`), else its runtime's, else the default one (old clients upload
 * zips naming only a runtime).
 */
function zipStackOf(
  runtime: string | undefined,
  startedBy: string | undefined,
  { runtimes, stacks, defaultStack, shellFollowsScript }: StackSettings,
): string | undefined {
  if (runtime === 'sh' && shellFollowsScript && startedBy && Object.hasOwn(runtimes, startedBy))
    return runtimes[startedBy];
  if (runtime) return ownEntry(runtimes, runtime);
  return Object.hasOwn(stacks, defaultStack) ? defaultStack : undefined;
}

/**
 * The script whose program picks the stack of this upload: `file_name` of a zip package of
 * runtime `sh` naming no stack or image; undefined otherwise, or when `data` is not readable
 * (uploadFrom then says what is wrong with it).
 */
export function shellScriptOf(dataText: string | undefined): string | undefined {
  try {
    const data = parseData(dataText);
    if (data.runtime !== 'sh' || data.stack || data.image) return undefined;
    return typeof data.file_name === 'string' && data.file_name !== '' ? data.file_name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks every `data` field against the spec's rules and builds the upload; `startedBy` is the
 * runtime the package's shell script starts (see shellScriptOf).
 */
export function uploadFrom(
  dataText: string | undefined,
  zip: Buffer | undefined,
  stackSettings: StackSettings,
  startedBy?: string,
): Upload {
  const { stacks } = stackSettings;
  const data = parseData(dataText);
  const name = optionalString(data, 'name');
  if (!name) throw fail('field_required', 'name');
  if (name.length > 255) throw fail('code_name_too_long');
  const image = optionalString(data, 'image');
  const runtime = runtimeOf(data, stackSettings.runtimes);
  const stack =
    optionalString(data, 'stack') ?? (zip && !image ? zipStackOf(runtime, startedBy, stackSettings) : undefined);
  if (image && stack) throw fail('code_image_and_stack');
  if (stack && !Object.hasOwn(stacks, stack)) throw fail('code_unknown_stack', Object.keys(stacks).sort());
  if (stack && !zip) throw fail('code_stack_without_zip');
  if (!image && !stack) throw zip ? fail('code_image_or_stack_missing') : fail('field_required', 'image');
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
    priority: optionalInteger(data, 'default_priority', TASK_BOUNDS.priority.minimum, TASK_BOUNDS.priority.maximum),
    env_vars: envVarsOf(data),
  };
  for (const key of Object.keys(settings) as (keyof CodeSettings)[])
    if (settings[key] === undefined) delete settings[key];
  return { name, settings, zip };
}
