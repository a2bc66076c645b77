import { Command, CommanderError, Option } from 'commander';
import { cacheCommand } from './commands/cache.js';
import { clustersCommand, runnersCommand } from './commands/clusters.js';
import { functionsCommand } from './commands/functions.js';
import { mqCommand } from './commands/mq.js';
import { projectsCommand } from './commands/projects.js';
import { tokensCommand } from './commands/tokens.js';
import { usersCommand } from './commands/users.js';
import { workerCommand } from './commands/worker.js';
import { SHELLS, type Shell, completionScript } from './completion.js';
import { CliError } from './errors.js';
import { commandPath } from './old-spelling.js';
import { integer } from './options.js';
import { OUTPUT_FORMATS } from './output-formats.js';
import { VERSION } from '../src/core/version.js';

/** Exit statuses: 0 success, 1 the server or the task refused, 2 a usage error. */
export const EXIT_USAGE = 2;

const CONFIG_HELP = `
Configuration, later sources overriding earlier ones (the platform's scheme):
  ~/.iron.json, IRON_TOKEN / IRON_PROJECT_ID / IRON_HOST / IRON_PORT / IRON_PROTOCOL (or IRON_SCHEME),
  .ferrum/iron.json (written by \`ferrum start\`; $FERRUM_DATA_DIR/iron.json), ./iron.json,
  --iron-json <file>, then the flags.`;

/**
 * Settings every command inherits: a usage error prints the error, the command's one usage line
 * and where its help is (not the whole help), and exits 2.
 */
function configureTree(command: Command): void {
  const path = commandPath(command);
  command
    .exitOverride()
    .showHelpAfterError(
      `Usage: ${path} ${command.usage()}\nRun '${path} --help' for ${command.commands.length > 0 ? 'its commands' : 'its arguments'} and options.`,
    )
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({ outputError: (text, write) => write(text) });
  for (const sub of command.commands) configureTree(sub);
}

function globalOptions(program: Command): void {
  program
    .option('--token <token>', 'access token')
    .option('--project-id <id>', 'project id')
    .option('--host <host>', 'server host, over iron.json and IRON_HOST (localhost when none says)')
    .option('--port <port>', 'server port, over iron.json and IRON_PORT (8080 when none says)', integer(1, 65535))
    .addOption(
      new Option(
        '--protocol <protocol>',
        'http or https, over iron.json and IRON_PROTOCOL (http when none says)',
      ).choices(['http', 'https']),
    )
    .option('--iron-json <file>', 'an iron.json to read after the local ones')
    .addOption(
      new Option('-o, --output <format>', 'print json, yaml, or wide tables (every field)').choices(OUTPUT_FORMATS),
    )
    .option('--json', 'print the JSON the server answered instead of tables (-o json)');
}

/** `ferrum completion bash|zsh|fish`: the shell completion of this program, generated from its commands. */
function completionCommand(program: Command): Command {
  return new Command('completion')
    .description('print the shell completion script: eval "$(ferrum completion bash)"')
    .addArgument(program.createArgument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .action((shell: Shell) => {
      process.stdout.write(completionScript(program, shell));
    });
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
    completionCommand(program),
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
