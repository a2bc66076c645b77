import type { Command } from 'commander';
import { ApiClient } from './api-client.js';
import { ConfigError, defaultSources, loadClientConfig } from './config.js';
import { CliError } from './errors.js';
import { Output } from './output.js';

/** What every client command works with: the API client and where results go. */
export interface CommandContext {
  api: ApiClient;
  out: Output;
}

interface GlobalOptions {
  token?: string;
  projectId?: string;
  host?: string;
  port?: number;
  protocol?: string;
  ironJson?: string;
  json?: boolean;
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
  try {
    const config = loadClientConfig(defaultSources(flags, options.ironJson));
    return { api: new ApiClient(config), out: new Output(Boolean(options.json)) };
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, 2);
    throw error;
  }
}

/** Wraps a command action so it receives the context, its arguments and its options. */
export function action<A extends unknown[]>(
  run: (ctx: CommandContext, ...args: A) => Promise<void>,
): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    try {
      await run(contextOf(command), ...(args.slice(0, -1) as A));
    } catch (error) {
      // Usage problems found while running print the command's usage, like commander's own.
      if (error instanceof CliError && error.exitCode === 2)
        command.error(`error: ${error.message}`, { exitCode: 2, code: 'ferrum.usage' });
      throw error;
    }
  };
}
