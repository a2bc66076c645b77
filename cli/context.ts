import type { Command } from 'commander';
import { apiClient, type Endpoints } from '../client/endpoints.js';
import { ApiClient } from './api-client.js';
import { ConfigError, defaultSources, loadClientConfig } from './config.js';
import { CliError } from './errors.js';
import type { OutputFormat } from './output-formats.js';
import { Output } from './output.js';

/** What every client command works with: the API's endpoints, the HTTP client under them, and where results go. */
export interface CommandContext {
  /** The shared client (client/endpoints.js): every path the commands call is named there. */
  client: Endpoints;
  /** Its transport, for the raw requests it does not cover (uploads, /r/ calls, log bytes). */
  api: ApiClient;
  out: Output;
  /** The command running, for what its arguments do not carry (the excess operands of an old spelling). */
  command: Command;
}

interface GlobalOptions {
  token?: string;
  projectId?: string;
  host?: string;
  port?: number;
  protocol?: string;
  ironJson?: string;
  json?: boolean;
  output?: 'json' | 'yaml' | 'wide';
}

/** `--json` is `-o json`; with another `-o` it is a usage error. */
function formatOf(options: GlobalOptions): OutputFormat {
  if (options.json && options.output !== undefined && options.output !== 'json')
    throw new CliError(`--json and -o ${options.output} disagree: give one`, 2);
  return options.json ? 'json' : (options.output ?? 'table');
}

export function contextOf(command: Command): CommandContext {
  const options = command.optsWithGlobals<GlobalOptions>();
  const flags = {
    token: options.token,
    projectId: options.projectId,
    host: options.host,
    port: options.port,
    protocol: options.protocol,
  };
  const out = new Output(formatOf(options));
  try {
    const config = loadClientConfig(defaultSources(flags, options.ironJson));
    const api = new ApiClient(config);
    return { client: apiClient(api), api, out, command };
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, 2);
    throw error;
  }
}
