import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/temp-dirs.js';

// `npm start`'s preparation (scripts/prestart.mjs), run in a small project of its own whose
// build only counts how often it ran.
const PRESTART = path.resolve(import.meta.dirname, '../../scripts/prestart.mjs');
const tempDir = useTempDirs('ferrum-prestart-');

function project(): string {
  const root = tempDir();
  const build =
    "node -e \"const fs=require('fs');fs.mkdirSync('dist/bin',{recursive:true});" +
    "fs.writeFileSync('dist/bin/ferrum.js','');fs.appendFileSync('builds.log','b')\"";
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'fixture', scripts: { build } }));
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src', 'a.ts'), 'export {};\n');
  return root;
}

function prestart(root: string, ...args: string[]): string {
  return execFileSync(process.execPath, [PRESTART, ...args], { cwd: root, encoding: 'utf8', stdio: 'pipe' });
}

const builds = (root: string) => fs.readFileSync(path.join(root, 'builds.log'), 'utf8').length;

/** Sets a file's modification time `seconds` from now (mtimes, not sleeps, order the files). */
function touch(file: string, seconds: number): void {
  const at = Date.now() / 1000 + seconds;
  fs.utimesSync(file, at, at);
}

describe('npm start preparation', () => {
  it('builds when there is no build, and not again while nothing changed', () => {
    const root = project();
    expect(prestart(root, '--check')).toBe('build needed: no build yet\n');
    prestart(root, '--no-setup');
    expect(builds(root)).toBe(1);
    expect(prestart(root, '--check')).toBe('up to date\n');
    prestart(root, '--no-setup');
    expect(builds(root)).toBe(1);
  });

  it('builds again when a source, the dashboard or the build settings are newer than the build', () => {
    const root = project();
    const stamp = path.join(root, 'dist', '.built');
    prestart(root, '--no-setup');
    touch(stamp, -20);
    touch(path.join(root, 'src', 'a.ts'), -10);
    expect(prestart(root, '--check')).toBe(`build needed: ${path.join('src', 'a.ts')} is newer than the last build\n`);
    prestart(root, '--no-setup');
    expect(builds(root)).toBe(2);
    expect(prestart(root, '--check')).toBe('up to date\n');

    touch(stamp, -20);
    touch(path.join(root, 'src', 'a.ts'), -30);
    fs.mkdirSync(path.join(root, 'web'));
    fs.writeFileSync(path.join(root, 'web', 'app.js'), '');
    touch(path.join(root, 'web', 'app.js'), -10);
    expect(prestart(root, '--check')).toMatch(/web\/app\.js is newer/);
    touch(path.join(root, 'web', 'app.js'), -30);
    touch(path.join(root, 'package.json'), -10);
    expect(prestart(root, '--check')).toBe('build needed: package.json is newer than the last build\n');
  });

  it('builds when the stamp is there but the output is gone', () => {
    const root = project();
    prestart(root, '--no-setup');
    fs.rmSync(path.join(root, 'dist', 'bin'), { recursive: true });
    expect(prestart(root, '--check')).toBe('build needed: dist/bin/ferrum.js is missing\n');
  });
});
