import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '../..');

export const NODE_BASE_IMAGE = 'ferrum-test/node-base';

/**
 * The tag of images built from this checkout's own sources: two checkouts testing at once on one
 * engine never run each other's build (a tag per checkout, not per run, so they do not pile up).
 */
export const CHECKOUT_TAG = createHash('sha256').update(repoRoot).digest('hex').slice(0, 12);

/** `ferrum-test/<name>` as built from this checkout. */
export function checkoutImage(name: string): string {
  return `ferrum-test/${name}:${CHECKOUT_TAG}`;
}

export const FERRUM_IMAGE = checkoutImage('ferrum');

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

export const IRON_CLIENTS_IMAGE = 'ferrum-test/iron-clients';

/** The packages `name` needs at run time, as folders of this repository's node_modules (nested ones come with their parent). */
function dependencyDirs(name: string, from: string, found = new Map<string, string>()): Map<string, string> {
  const nodeModules = path.join(repoRoot, 'node_modules');
  let dir = from;
  let packageDir: string | undefined;
  // Node's lookup: the nearest node_modules/<name> walking up from the requiring package.
  while (dir.startsWith(repoRoot)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) {
      packageDir = candidate;
      break;
    }
    dir = path.dirname(dir);
  }
  if (!packageDir) throw new Error(`cannot find ${name} from ${from}`);
  if ([...found.values()].includes(packageDir)) return found;
  if (path.dirname(packageDir) === nodeModules) found.set(name, packageDir);
  else found.set(`${name}@${packageDir}`, packageDir);
  const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  for (const dependency of Object.keys(manifest.dependencies ?? {})) dependencyDirs(dependency, packageDir, found);
  return found;
}

/**
 * ferrum-test/iron-clients: the Node base with the official iron_mq client (from this
 * repository's node_modules) on NODE_PATH, for task code that uses the platform from inside
 * its container. Rebuilt when the client's version changes.
 */
export async function buildIronClientsImage(): Promise<string> {
  const version = JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules/iron_mq/package.json'), 'utf8')).version;
  const label = `iron_mq-${version}`;
  const current = await docker(
    'image',
    'inspect',
    '-f',
    '{{ index .Config.Labels "clients" }}',
    IRON_CLIENTS_IMAGE,
  ).catch(() => '');
  if (current === label) return IRON_CLIENTS_IMAGE;
  await run('bash', [path.join(repoRoot, 'scripts/build-node-base-image.sh'), NODE_BASE_IMAGE]);
  const context = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-iron-clients-'));
  try {
    const modules = path.join(context, 'node_modules');
    fs.mkdirSync(modules);
    for (const [name, dir] of dependencyDirs('iron_mq', repoRoot)) {
      if (name.includes('@/')) continue; // nested: copied with its parent
      fs.cpSync(dir, path.join(modules, name), { recursive: true, dereference: true });
    }
    fs.writeFileSync(
      path.join(context, 'Dockerfile'),
      `FROM ${NODE_BASE_IMAGE}\nCOPY node_modules /opt/iron/node_modules\nENV NODE_PATH=/opt/iron/node_modules\nLABEL clients=${label}\n`,
    );
    await docker('build', '--network', 'none', '-q', '-t', IRON_CLIENTS_IMAGE, context);
  } finally {
    fs.rmSync(context, { recursive: true, force: true });
  }
  return IRON_CLIENTS_IMAGE;
}
