#!/usr/bin/env node
import type { Command } from 'commander';
import { CliError } from '../cli/errors.js';
import type { Config } from '../src/core/config.js';
import { buildProgram, runProgram } from '../cli/program.js';

/** `ferrum admin token`: a new admin token, printed and written to iron.json (or the bootstrap, on a fresh store). */
async function printAdminToken(options: { revokeEarlier?: boolean }): Promise<void> {
  const { loadConfig } = await import('../src/core/config.js');
  const { issueAdminToken } = await import('../controller/admin/admin-token.js');
  const { printBootstrap } = await import('../controller/admin/print-bootstrap.js');
  const issued = await issueAdminToken(loadConfig(), { revokeEarlier: Boolean(options.revokeEarlier) });
  if (issued.bootstrap) return printBootstrap(issued.bootstrap, issued.ironJsonPath);
  const lines = [
    `Ferrum: a new admin token for ${issued.email}.`,
    `  token:      ${issued.token}`,
    `  project_id: ${issued.projectId ?? '(the admin has no project)'}`,
    ...(issued.ironJsonPath ? [`  iron.json:  ${issued.ironJsonPath}`] : []),
    ...(options.revokeEarlier ? [`  revoked:    ${issued.revoked} earlier admin token(s)`] : []),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

/** The feature commands' module, loaded on demand like every server module. */
type AdminFeatures = typeof import('../controller/admin/admin-features.js');

/** `ferrum admin features list|enable`: the storage feature flags, through the installation's Redis. */
function featureCommands(admin: Command): void {
  const features = admin
    .command('features')
    .description('storage feature flags: what is written to Redis once every live process supports it');
  const run = async (work: (commands: AdminFeatures, config: Config) => Promise<string[]>) => {
    const { loadConfig } = await import('../src/core/config.js');
    const commands = await import('../controller/admin/admin-features.js');
    try {
      process.stdout.write((await work(commands, loadConfig())).join('\n') + '\n');
    } catch (error) {
      if (error instanceof commands.FeatureCommandError) throw new CliError(error.message);
      throw error;
    }
  };
  features
    .command('list')
    .description('every flag this release knows, whether it is enabled, and the live processes with what they support')
    .action(() => run((commands, config) => commands.featureListing(config)));
  features
    .command('enable [name]')
    .description('enable a flag (or every known one with --all); refused while a live process does not support it')
    .option('--all', 'every flag this release knows')
    .action((name: string | undefined, options: { all?: boolean }) => {
      if (!name === !options.all) throw new CliError('name one flag, or give --all', 2);
      return run((commands, config) => commands.enableFeature(config, options.all ? 'all' : name!));
    });
}

// The server modules load only for the server commands, so client commands start quickly.
async function runServer(withRunner: boolean): Promise<void> {
  const { serve } = await import('../controller/serve.js');
  await serve(withRunner);
}

function serverCommands(program: Command): void {
  program
    .command('start')
    .description('all-in-one: managed Redis (unless REDIS_URL is set), the controller and one runner')
    .action(() => runServer(true));
  program
    .command('controller')
    .description('the HTTP APIs and background loops')
    .action(() => runServer(false));
  const admin = program
    .command('admin')
    .description("the installation's own administration, through its Redis (REDIS_URL or FERRUM_DATA_DIR's)");
  admin
    .command('token')
    .description(
      "make a new admin token for the first admin user, print it and write it to iron.json (the first start's is shown only once); on a store with no user yet, bootstrap it",
    )
    .option('--revoke-earlier', 'revoke the admin tokens made earlier at bootstrap or by this command')
    .action(printAdminToken);
  featureCommands(admin);
  program
    .command('runner')
    .description(
      'a task runner (needs Docker): against REDIS_URL for the cluster FERRUM_RUNNER_CLUSTER, or through the runner API with --api and --token',
    )
    .option('--api <url>', 'gateway mode: the Ferrum API the runner reaches (FERRUM_API_URL)')
    .option('--token <token>', "gateway mode: a runner token of the runner's cluster (FERRUM_RUNNER_TOKEN)")
    .action(async (_options: unknown, command: Command) => {
      // The program's global --token (the client's access token) is parsed wherever it appears,
      // so `ferrum runner --token T` lands there: the runner reads it from the merged options.
      const options = command.optsWithGlobals<{ api?: string; token?: string }>();
      if (options.api) process.env.FERRUM_API_URL = options.api;
      if (options.token) process.env.FERRUM_RUNNER_TOKEN = options.token;
      const { loadConfig } = await import('../src/core/config.js');
      const { runRunnerDaemon } = await import('../runner/main.js');
      await runRunnerDaemon(loadConfig());
    });
}

const argv = process.argv.slice(2);
runProgram(buildProgram(serverCommands), argv.length > 0 ? argv : ['start']).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(`ferrum: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
