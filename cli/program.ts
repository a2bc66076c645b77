import { Command, CommanderError, Option } from 'commander';
import { cacheCommand } from './commands/cache.js';
import { clustersCommand, runnersCommand } from './commands/clusters.js';
import { functionsCommand } from './commands/functions.js';
import { mqCommand } from './commands/mq.js';
import { projectsCommand } from './commands/projects.js';
import { tokensCommand } from './commands/tokens.js';
import { usersCommand } from './commands/users.js';
import { workerCommand } from './commands/worker.js';
import { CliError } from './errors.js';
import { integer } from './options.js';
import { VERSION } from '../src/core/version.js';

/** Exit statuses: 0 success, 1 the server or the task refused, 2 a usage error. */
export const EXIT_USAGE = 2;

const CONFIG_HELP = `
Configuration, later sources overriding earlier ones (the platform's scheme):
  ~/.iron.json, IRON_TOKEN / IRON_PROJECT_ID / IRON_HOST / IRON_PORT / IRON_PROTOCOL (or IRON_SCHEME),
  .ferrum/iron.json (written by \`ferrum start\`; $FERRUM_DATA_DIR/iron.json), ./iron.json,
  --iron-json <file>, then the flags.`;

/** Settings every command inherits: usage errors print the usage and exit 2. */
function configureTree(command: Command): void {
  command
    .exitOverride()
    .showHelpAfterError()
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({ outputError: (text, write) => write(text) });
  for (const sub of command.commands) configureTree(sub);
}

function globalOptions(program: Command): void {
  program
    .option('--token <token>', 'access token')
    .option('--project-id <id>', 'project id')
    .option('--host <host>', 'server host (default localhost)')
    .option('--port <port>', 'server port (default 8080)', integer(1, 65535))
    .addOption(new Option('--protocol <protocol>', 'http or https (default http)').choices(['http', 'https']))
    .option('--iron-json <file>', 'an iron.json to read after the local ones')
    .option('--json', 'print the JSON the server answered instead of tables');
}

/** The `ferrum` program: the client command groups, plus whatever server commands `extend` adds. */
export function buildProgram(extend: (program: Command) => void = () => {}): Command {
  const program = new Command('ferrum')
    .description('Ferrum: the server and its command-line client')
    .version(VERSION, '-V, --version', 'print the version')
    .addHelpText('after', CONFIG_HELP);
  globalOptions(program);
  extend(program);
  for (const group of [
    usersCommand(),
    tokensCommand(),
    projectsCommand(),
    mqCommand(),
    cacheCommand(),
    workerCommand(),
    clustersCommand(),
    runnersCommand(),
    functionsCommand(),
  ]) {
    program.addCommand(group);
  }
  program.helpCommand('help [command]', 'show help for a command');
  configureTree(program);
  return program;
}

const CLEAN_EXITS = new Set(['commander.helpDisplayed', 'commander.version', 'commander.help']);

/** Runs the program; answers the exit status instead of exiting so callers decide when. */
export async function runProgram(program: Command, argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return CLEAN_EXITS.has(error.code) && error.exitCode === 0 ? 0 : EXIT_USAGE;
    if (error instanceof CliError) {
      process.stderr.write(`ferrum: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
}
