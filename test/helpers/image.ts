import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '../..');

export const NODE_BASE_IMAGE = 'ferrum-test/node-base';
export const FERRUM_IMAGE = 'ferrum-test/ferrum';

/** Runs the docker CLI; throws with its stderr when it exits non-zero. */
export async function docker(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('docker', args, { maxBuffer: 64 * 1024 * 1024 });
    return stdout.trim();
  } catch (error) {
    const failure = error as Error & { stderr?: string; stdout?: string };
    throw new Error(`docker ${args.join(' ')} failed: ${failure.stderr || failure.message}\n${failure.stdout ?? ''}`);
  }
}

/**
 * Builds the Ferrum image from the working tree on a local Node base (there is no registry).
 * Docker's layer cache makes this quick when neither package-lock.json nor the sources changed.
 * The build stage installs packages from the npm registry, reachable only with --network host.
 */
export async function buildFerrumImage(tag = FERRUM_IMAGE): Promise<string> {
  await run('bash', [path.join(repoRoot, 'scripts/build-node-base-image.sh'), NODE_BASE_IMAGE]);
  await docker('build', '--network', 'host', '--build-arg', `BASE_IMAGE=${NODE_BASE_IMAGE}`, '-t', tag, repoRoot);
  return tag;
}

export interface ContainerState {
  running: boolean;
  exitCode: number;
}

export async function containerState(name: string): Promise<ContainerState> {
  const [running, exitCode] = (await docker('inspect', '-f', '{{.State.Running}} {{.State.ExitCode}}', name)).split(
    ' ',
  );
  return { running: running === 'true', exitCode: Number(exitCode) };
}
