// Whether dist/ is older than what it is built from: `npm start` builds only then.
import fs from 'node:fs';
import path from 'node:path';

/** dist/.built: written at the end of every build (scripts/copy-assets.mjs). */
export const BUILT_STAMP = path.join('dist', '.built');

/** What the build reads: the TypeScript folders, the dashboard, and the files that steer the build. */
const INPUT_FOLDERS = ['src', 'api', 'controller', 'runner', 'cli', 'bin', 'web'];
const INPUT_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/copy-assets.mjs',
];

function newestIn(root, relative) {
  const full = path.join(root, relative);
  let stat;
  try {
    stat = fs.statSync(full);
  } catch {
    return null;
  }
  if (!stat.isDirectory()) return { file: relative, mtimeMs: stat.mtimeMs };
  let newest = null;
  for (const entry of fs.readdirSync(full)) {
    const found = newestIn(root, path.join(relative, entry));
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  return newest;
}

/** Why a build is needed ("src/x.ts is newer than the last build"), or null when dist/ is current. */
export function buildNeeded(root) {
  let builtMs;
  try {
    builtMs = fs.statSync(path.join(root, BUILT_STAMP)).mtimeMs;
  } catch {
    return 'no build yet';
  }
  if (!fs.existsSync(path.join(root, 'dist', 'bin', 'ferrum.js'))) return 'dist/bin/ferrum.js is missing';
  for (const input of [...INPUT_FOLDERS, ...INPUT_FILES]) {
    const newest = newestIn(root, input);
    if (newest && newest.mtimeMs > builtMs) return `${newest.file} is newer than the last build`;
  }
  return null;
}

/** Marks dist/ as built from the sources as they were at `startedMs` (the build's start). */
export function markBuilt(root, startedMs) {
  const stamp = path.join(root, BUILT_STAMP);
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  fs.writeFileSync(stamp, `${new Date(startedMs).toISOString()}\n`);
  fs.utimesSync(stamp, startedMs / 1000, startedMs / 1000);
}
