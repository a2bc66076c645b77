import type { Command } from 'commander';

/** `ferrum mq view`: the command's name with its parents'. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/**
 * Adds `nameAndArgs` under `parent` as a hidden old spelling of `replacement` (kept for one
 * release): it works as before, is left out of help and completion, and says on stderr what
 * to type instead. The caller defines it with the same function as the new command.
 */
export function oldSpelling(parent: Command, nameAndArgs: string, replacement: string): Command {
  const command = parent.command(nameAndArgs, { hidden: true });
  command.hook('preAction', () => tellOldSpelling(commandPath(command), replacement));
  return command;
}

/** Says on stderr (stdout stays the result) that `old` is now spelled `replacement`. */
export function tellOldSpelling(old: string, replacement: string): void {
  process.stderr.write(`ferrum: '${old}' is now '${replacement}'; the old spelling goes next release\n`);
}
