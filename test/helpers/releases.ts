import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A previous release, as test/upgrade/releases.json lists it (git tags may be missing from a clone). */
export interface Release {
  name: string;
  version: string;
  commit: string;
}

export function previousReleases(): Release[] {
  const file = path.join(ROOT, 'test/upgrade/releases.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { releases: Release[] }).releases;
}

/**
 * The folder of `release` built from this repository's history (scripts/build-release.sh):
 * at once when CI's lane script built it already, else built now (a minute or two).
 */
export function builtRelease(release: Release): string {
  const output = execFileSync('bash', [path.join(ROOT, 'scripts/build-release.sh'), release.commit], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return output.trim().split('\n').at(-1)!;
}
