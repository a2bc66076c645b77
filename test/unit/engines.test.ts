import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue #20 item 6: no dependency declares an engine newer than ours. package.json's
 * engines.node is the range Ferrum promises to run on; the oldest Node it admits must satisfy
 * the engines.node of every installed package, nested copies included.
 */

interface Semver {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
  validRange(range: string): string | null;
}
// semver (a devDependency) has no type declarations installed; these are the calls used.
const semver = createRequire(import.meta.url)('semver') as Semver;

const ROOT = path.resolve(import.meta.dirname, '../..');

interface PackageJson {
  name?: string;
  version?: string;
  engines?: { node?: unknown };
}

function readPackageJson(file: string): PackageJson | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as PackageJson;
  } catch {
    return undefined; // no package.json, or not JSON (a few packages ship test fixtures)
  }
}

const ours = readPackageJson(path.join(ROOT, 'package.json'))!;
const ourRange = String(ours.engines?.node);

interface Declared {
  where: string;
  range: string;
}

interface Installed {
  where: string;
  range: string | undefined;
}

/** Every package directory under a node_modules folder, scoped ones and nested node_modules too. */
function installedPackages(nodeModules: string, found: Installed[] = []): Installed[] {
  for (const entry of fs.readdirSync(nodeModules, { withFileTypes: true })) {
    // .bin, .package-lock.json, .vite...; symbolic links (npm link) point outside the tree.
    if (entry.name.startsWith('.') || !entry.isDirectory()) continue;
    const dir = path.join(nodeModules, entry.name);
    if (entry.name.startsWith('@')) {
      installedPackages(dir, found);
      continue;
    }
    const manifest = readPackageJson(path.join(dir, 'package.json'));
    const range = manifest?.engines?.node;
    found.push({
      where: `${path.relative(ROOT, dir)}@${manifest?.version ?? '?'}`,
      range: typeof range === 'string' ? range : undefined,
    });
    const nested = path.join(dir, 'node_modules');
    if (fs.existsSync(nested)) installedPackages(nested, found);
  }
  return found;
}

function offenders(declared: Declared[], version: string): string[] {
  return declared
    .filter(({ range }) => !semver.satisfies(version, range))
    .map(({ where, range }) => `${where} needs node ${range}`);
}

describe('engines.node', () => {
  const minimum = semver.minVersion(ourRange)?.version;

  it('is a range with a minimum, the same in package-lock.json', () => {
    expect(semver.validRange(ourRange), ourRange).not.toBeNull();
    expect(minimum).toBeDefined();
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, PackageJson>;
    };
    expect(lock.packages['']?.engines?.node).toBe(ourRange);
  });

  it('admits this machine’s Node', () => {
    expect(semver.satisfies(process.versions.node, ourRange), `node ${process.versions.node} vs ${ourRange}`).toBe(
      true,
    );
  });

  it('has a minimum every installed package accepts', () => {
    const installed = installedPackages(path.join(ROOT, 'node_modules'));
    // Sanity: the walk finds the packages, nested copies included (npm installs a few).
    expect(installed.length).toBeGreaterThan(100);
    expect(installed.some(({ where }) => /node_modules\/.+\/node_modules\//.test(where))).toBe(true);
    // Those without engines.node run on any Node.
    const declared = installed.flatMap(({ where, range }): Declared[] =>
      range === undefined ? [] : [{ where, range }],
    );
    const bad = offenders(declared, minimum!);
    expect(
      bad,
      `engines.node ${ourRange} admits node ${minimum}, which these packages refuse:\n${bad.join('\n')}`,
    ).toEqual([]);
  });

  it('has a minimum every package of package-lock.json accepts, other platforms’ optional ones included', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, PackageJson>;
    };
    const declared = Object.entries(lock.packages).flatMap(([where, entry]): Declared[] =>
      where !== '' && typeof entry.engines?.node === 'string'
        ? [{ where: `${where}@${entry.version ?? '?'}`, range: entry.engines.node }]
        : [],
    );
    const bad = offenders(declared, minimum!);
    expect(
      bad,
      `engines.node ${ourRange} admits node ${minimum}, which these packages refuse:\n${bad.join('\n')}`,
    ).toEqual([]);
  });
});
