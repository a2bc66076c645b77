import { Response } from 'undici';
import { FormData, type Json } from './api-client.js';
import type { CommandContext } from './context.js';
import { codeArchive } from './code-package.js';
import { inlineOrFile } from './options.js';
import { Progress, withUploadProgress } from './progress.js';

export interface UploadOptions {
  image?: string;
  command?: string;
  fileName?: string;
  runtime?: string;
  stack?: string;
  config?: string;
  configFile?: string;
  env?: Record<string, string>;
  maxConcurrency?: number;
  retries?: number;
  retriesDelay?: number;
  priority?: number;
}

function uploadData(name: string, options: UploadOptions, config: string | undefined): Json {
  return {
    name,
    image: options.image,
    command: options.command,
    file_name: options.fileName,
    runtime: options.runtime,
    stack: options.stack,
    config,
    env_vars: options.env,
    max_concurrency: options.maxConcurrency,
    retries: options.retries,
    retries_delay: options.retriesDelay,
    default_priority: options.priority,
  };
}

/** Uploads a code package (`POST /codes`), with the zip of `source` when given, showing the bytes sent. */
export async function uploadCode(
  { api, client }: Pick<CommandContext, 'api' | 'client'>,
  name: string,
  source: string | undefined,
  options: UploadOptions,
): Promise<Json> {
  const config =
    options.config === undefined && options.configFile === undefined
      ? undefined
      : await inlineOrFile({ inline: '--config', file: '--config-file' }, options.config, options.configFile);
  const form = new FormData();
  form.append('data', JSON.stringify(uploadData(name, options, config)));
  if (source !== undefined) {
    const zip = await codeArchive(source);
    form.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), `${name}.zip`);
  }
  // Encoded up front so the terminal can show bytes sent and the percentage.
  const encoded = new Response(form);
  const body = Buffer.from(await encoded.arrayBuffer());
  const progress = new Progress();
  try {
    return await api.call<Json>('POST', client.paths.codeUpload(), {
      body: withUploadProgress(`uploading ${name}…`, body, progress),
      headers: { 'content-type': encoded.headers.get('content-type')!, 'content-length': String(body.length) },
    });
  } finally {
    progress.clear();
  }
}
