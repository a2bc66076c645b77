import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** What `npm run build` compiles (tsconfig.build.json), and the dashboard's files, which it copies. */
const ROOTS = ['src', 'api', 'controller', 'runner', 'bin', 'cli', 'client', 'web'];
/** Git-ignored; one folder per state of the sources. */
const BUILDS = path.join(ROOT, '.test-build');
/** A build no run has used for this long is removed when a new one is made. */
const STALE_MS = 24 * 3600_000;

let built: string | undefined;

/**
 * This checkout compiled to JavaScript, for the tests that run Ferrum as a process (`ferrum
 * start`, `controller`, `runner`, the CLI): each TypeScript file compiled on its own (esbuild:
 * the same module graph, lazy imports stay lazy) into `.test-build/<hash of the sources>/`, the
 * Lua scripts, the dashboard and the shared client copied beside, as `npm run build` lays out
 * dist/. A process starts from it in a fraction of the time `--import tsx bin/ferrum.ts` takes
 * (no loader compiling every module again at each start). Built once per state of the sources;
 * every test process of a run finds it there.
 */
export function builtCheckout(): string {
  built ??= buildOnce();
  return built;
}

/** The built `ferrum` executable: run it with `node`. */
export function builtFerrum(): string {
  return path.join(builtCheckout(), 'bin/ferrum.js');
}

function buildOnce(): string {
  const files = ROOTS.flatMap((root) => filesUnder(root)).sort();
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(ROOT, file)));
  const target = path.join(BUILDS, hash.digest('hex').slice(0, 16));
  if (fs.existsSync(path.join(target, 'bin/ferrum.js'))) {
    fs.utimesSync(target, new Date(), new Date());
    return target;
  }
  removeStaleBuilds();
  // Built aside, then renamed into place: a test process running at the same time either sees
  // a whole build or none (and then builds its own, which loses the rename and is removed).
  const aside = fs.mkdtempSync(path.join(BUILDS, 'building-'));
  try {
    compileInto(aside, files);
    fs.renameSync(aside, target);
  } catch (error) {
    fs.rmSync(aside, { recursive: true, force: true });
    if (!fs.existsSync(path.join(target, 'bin/ferrum.js'))) throw error;
  }
  return target;
}

function compileInto(dir: string, files: string[]): void {
  const sources = files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
  buildSync({
    entryPoints: sources.map((file) => path.join(ROOT, file)),
    outbase: ROOT,
    outdir: dir,
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  for (const file of files.filter((name) => !name.endsWith('.ts'))) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
  }
  // Its .js files are ES modules whatever folder the build sits in.
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
}

function filesUnder(dir: string): string[] {
  const full = path.join(ROOT, dir);
  if (!fs.existsSync(full)) return [];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(file) : [file];
  });
}

function removeStaleBuilds(): void {
  fs.mkdirSync(BUILDS, { recursive: true });
  for (const name of fs.readdirSync(BUILDS)) {
    const dir = path.join(BUILDS, name);
    if (Date.now() - fs.statSync(dir).mtimeMs > STALE_MS) fs.rmSync(dir, { recursive: true, force: true });
  }
}
