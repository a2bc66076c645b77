#!/usr/bin/env node
import { startAllInOne } from '../controller/all-in-one.js';
import { startController } from '../controller/main.js';
import { runRunnerDaemon } from '../runner/main.js';
import { loadConfig } from '../src/core/config.js';
import { REDIS_INSTALL_HINT, redisServerAvailable } from '../src/core/managed-redis.js';

const USAGE = `Usage: ferrum <command>

Commands:
  start        all-in-one: managed Redis (unless REDIS_URL is set), the controller and one runner
  controller   the HTTP APIs and background loops
  runner       a task runner for the cluster FERRUM_RUNNER_CLUSTER (needs REDIS_URL and Docker)
`;

async function runServer(withRunner: boolean): Promise<void> {
  const config = loadConfig();
  if (!config.redisUrl && !redisServerAvailable()) {
    process.stderr.write(REDIS_INSTALL_HINT + '\n');
    process.exit(1);
  }
  const options = { logger: { level: config.logLevel } };
  const allInOne = withRunner ? await startAllInOne(config, options) : null;
  const running = allInOne?.controller ?? (await startController(config, options));
  const stop = () => (allInOne ? allInOne.stop() : running.stop());
  if (running.bootstrap) {
    const { email, password, token, projectId } = running.bootstrap;
    process.stdout.write(
      [
        '',
        'Ferrum bootstrap: created the first admin user, token and project.',
        `  email:      ${email}`,
        `  password:   ${password}`,
        `  token:      ${token}`,
        `  project_id: ${projectId}`,
        `  iron.json:  ${running.ironJsonPath}`,
        '',
      ].join('\n') + '\n',
    );
  }
  process.stdout.write(`Ferrum listening on ${running.url}\n`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    running.app.log.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (error) => {
        running.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

async function main(argv: string[]): Promise<void> {
  const command = argv[0] ?? 'start';
  switch (command) {
    case 'start':
      return runServer(true);
    case 'controller':
      return runServer(false);
    case 'runner':
      await runRunnerDaemon(loadConfig());
      return;
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return;
    default:
      process.stderr.write(`Unknown command "${command}"\n\n${USAGE}`);
      process.exit(2);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`ferrum: ${(error as Error).message}\n`);
  process.exit(1);
});
