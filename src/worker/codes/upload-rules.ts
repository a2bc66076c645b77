import { fail } from '../../core/errors.js';
import { ownEntry } from '../../core/own-entry.js';
import { LIMITS, type CodeSettings } from '../types.js';
import type { Upload } from './code-store.js';
import { runtimeCommand } from './runtime-commands.js';
import type { UploadData } from './upload-schema.js';

/** A code upload as a client sends it: the `data` part (checked by UPLOAD_DATA_SCHEMA) and the zip, if any. */
export interface UploadForm {
  data: UploadData;
  file?: Buffer;
}

// The rules of a code upload's `data` part a schema cannot say: an empty text is not given,
// env var names, config in bytes, which stack and command a package gets when it names none.

/** A text field, an empty one being not given (clients send "" for unset fields). */
function given(text: string | undefined): string | undefined {
  return text === '' ? undefined : text;
}

function envVarsOf(data: UploadData): Record<string, string> | undefined {
  for (const name of Object.keys(data.env_vars ?? {}))
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw fail('code_env_var_bad_name', name);
  return data.env_vars as Record<string, string> | undefined;
}

export interface StackSettings {
  stacks: Record<string, string>;
  defaultStack: string;
  /** Runtime → stack, for zip packages that name a runtime and no stack. */
  runtimes: Record<string, string>;
  /** Runtime `sh` runs on the stack of the runtime its script starts (false: the operator pinned `sh`). */
  shellFollowsScript: boolean;
}

function runtimeOf(data: UploadData, runtimes: Record<string, string>): string | undefined {
  const runtime = given(data.runtime);
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
 * runtime `sh` naming no stack or image; undefined otherwise.
 */
export function shellScriptOf(data: UploadData): string | undefined {
  if (data.runtime !== 'sh' || data.stack || data.image) return undefined;
  return given(data.file_name);
}

/**
 * Checks every `data` field against the spec's rules and builds the upload; `startedBy` is the
 * runtime the package's shell script starts (see shellScriptOf).
 */
export function uploadFrom(
  data: UploadData,
  zip: Buffer | undefined,
  stackSettings: StackSettings,
  startedBy?: string,
): Upload {
  const { stacks } = stackSettings;
  const name = given(data.name);
  if (!name) throw fail('field_required', 'name');
  const image = given(data.image);
  const runtime = runtimeOf(data, stackSettings.runtimes);
  const stack = given(data.stack) ?? (zip && !image ? zipStackOf(runtime, startedBy, stackSettings) : undefined);
  if (image && stack) throw fail('code_image_and_stack');
  if (stack && !Object.hasOwn(stacks, stack)) throw fail('code_unknown_stack', Object.keys(stacks).sort());
  if (stack && !zip) throw fail('code_stack_without_zip');
  if (!image && !stack) throw zip ? fail('code_image_or_stack_missing') : fail('field_required', 'image');
  const config = given(data.config);
  if (config !== undefined && Buffer.byteLength(config) > LIMITS.configBytes)
    throw fail('field_too_long', 'config', LIMITS.configBytes);
  const fileName = given(data.file_name);
  const command = given(data.command) ?? (zip && fileName ? runtimeCommand(fileName, runtime) : undefined);
  if (zip && !command) throw fail('code_command_missing');
  const settings: CodeSettings = {
    image,
    stack,
    runtime,
    file_name: fileName,
    command,
    config,
    max_concurrency: data.max_concurrency,
    retries: data.retries,
    retries_delay: data.retries_delay,
    priority: data.default_priority,
    env_vars: envVarsOf(data),
  };
  for (const key of Object.keys(settings) as (keyof CodeSettings)[])
    if (settings[key] === undefined) delete settings[key];
  return { name, settings, zip };
}
