#!/usr/bin/env node
import { startController } from '../controller/main.js';
import { loadConfig } from '../src/core/config.js';
import { REDIS_INSTALL_HINT, redisServerAvailable } from '../src/core/managed-redis.js';

const USAGE = `Usage: ferrum <command>

Commands:
  start        all-in-one: managed Redis (unless REDIS_URL is set) and the controller
  controller   the HTTP APIs and background loops (same as start)
`;

async function runServer(): Promise<void> {
  const config = loadConfig();
  if (!config.redisUrl && !redisServerAvailable()) {
    process.stderr.write(REDIS_INSTALL_HINT + '\n');
    process.exit(1);
  }
  const running = await startController(config, { logger: { level: config.logLevel } });
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
    running.stop().then(
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
    case 'controller':
      return runServer();
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
