import type { Command } from 'commander';
import type { CommandContext } from './context.js';
import { CliError } from './errors.js';

/**
 * Wraps a command action so it receives the context, its arguments and its options. The context
 * (the HTTP client, the output formats) is imported only here, when a command runs, so defining
 * the commands and printing help loads none of it.
 */
export function action<A extends unknown[]>(
  run: (ctx: CommandContext, ...args: A) => Promise<void>,
): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    let ctx: CommandContext | undefined;
    try {
      const { contextOf } = await import('./context.js');
      ctx = contextOf(command);
      await run(ctx, ...(args.slice(0, -1) as A));
    } catch (error) {
      // Usage problems found while running print the command's usage, like commander's own.
      if (error instanceof CliError && error.exitCode === 2)
        command.error(`error: ${error.message}`, { exitCode: 2, code: 'ferrum.usage' });
      throw error;
    } finally {
      await ctx?.api.dispose();
    }
  };
}
