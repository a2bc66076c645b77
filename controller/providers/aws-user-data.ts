import { AwsProviderError } from './aws-errors.js';

/** EC2 refuses user data over 16 KB (before base64). */
export const MAX_USER_DATA_BYTES = 16 * 1024;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RUNNER_ENV_FILE = '/etc/ferrum/runner.env';
const TASK_DIR = '/mnt/task';

export interface RunnerBootOptions {
  /** The Ferrum image the instance runs as `ferrum runner`. */
  image: string;
  runnerEnv: Record<string, string>;
}

/** Single-quotes a word for sh. */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `docker run --env-file` lines: KEY=value taken literally, one per line, so no newlines. */
function envFileLines(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([name, value]) => {
      if (!ENV_NAME.test(name))
        throw new AwsProviderError(`runner environment variable name "${name}" is not a valid name`);
      if (/[\r\n\0]/.test(value))
        throw new AwsProviderError(`runner environment variable ${name} must not contain a line break`);
      return `${name}=${value}`;
    })
    .join('\n');
}

/**
 * The default cloud-init script of an instance: makes sure Docker runs, prepares the task
 * directory (the instance store at /mnt on the spec's instance families), and starts the Ferrum
 * runner container with the launch's environment. The runner shares the host's network and
 * Docker socket so the task containers it starts run beside it.
 */
export function defaultRunnerUserData(options: RunnerBootOptions): string {
  const env = { FERRUM_RUNNER_TASK_DIR: TASK_DIR, ...options.runnerEnv };
  const image = shellQuote(options.image);
  return [
    '#!/bin/bash',
    'set -euo pipefail',
    'if ! command -v docker >/dev/null 2>&1; then',
    '  if command -v dnf >/dev/null 2>&1; then dnf install -y docker',
    '  elif command -v yum >/dev/null 2>&1; then yum install -y docker',
    '  else apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y docker.io; fi',
    'fi',
    'systemctl enable --now docker',
    `mkdir -p ${TASK_DIR} /etc/ferrum`,
    `chown 1000:1000 ${TASK_DIR}`,
    'umask 077',
    `cat > ${RUNNER_ENV_FILE} <<'FERRUM_RUNNER_ENV'`,
    envFileLines(env),
    'FERRUM_RUNNER_ENV',
    `docker pull ${image} || true`,
    'docker rm -f ferrum-runner >/dev/null 2>&1 || true',
    'docker run -d --name ferrum-runner --restart unless-stopped --network host \\',
    '  --group-add "$(stat -c %g /var/run/docker.sock)" \\',
    '  -v /var/run/docker.sock:/var/run/docker.sock \\',
    `  -v ${TASK_DIR}:${TASK_DIR} \\`,
    `  --env-file ${RUNNER_ENV_FILE} \\`,
    `  ${image} runner`,
    '',
  ].join('\n');
}

/** EC2 takes user data base64-encoded; refuses what EC2 itself would refuse. */
export function encodeUserData(script: string): string {
  const bytes = Buffer.from(script, 'utf8');
  if (bytes.length > MAX_USER_DATA_BYTES) {
    throw new AwsProviderError(`user_data is ${bytes.length} bytes; EC2 accepts at most ${MAX_USER_DATA_BYTES}`);
  }
  return bytes.toString('base64');
}
