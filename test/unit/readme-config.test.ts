import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FOLDERS = ['src', 'api', 'controller', 'runner', 'cli', 'bin'];

function sourceFiles(folder: string): string[] {
  return fs
    .readdirSync(folder, { withFileTypes: true, recursive: true })
    .flatMap((entry) =>
      entry.isFile() && entry.name.endsWith('.ts') ? [path.join(entry.parentPath, entry.name)] : [],
    );
}

/** FERRUM_* settings the code reads: in the config readers, and from an env object anywhere else. */
function settingsRead(): Set<string> {
  const names = new Set<string>();
  for (const file of FOLDERS.flatMap((folder) => sourceFiles(path.join(ROOT, folder)))) {
    const text = fs.readFileSync(file, 'utf8');
    // The config readers (src/core/config/*.ts) read through helpers that take the name as a
    // string: intFrom(env, 'FERRUM_X', …).
    const pattern =
      path.dirname(file) === path.join(ROOT, 'src', 'core', 'config')
        ? /\benv(?:\.|\[['"])(FERRUM_[A-Z0-9_]+)|['"](FERRUM_[A-Z0-9_]+)['"]/g
        : /\benv(?:\.|\[['"])(FERRUM_[A-Z0-9_]+)/g;
    for (const match of text.matchAll(pattern)) names.add((match[1] ?? match[2])!);
  }
  return names;
}

/** The variables in the first column of README.md's configuration table. */
function documented(): Set<string> {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Configuration'));
  const table = section.slice(0, section.indexOf('\n## '));
  return new Set([...table.matchAll(/^\| `([A-Z0-9_]+)`/gm)].map((match) => match[1]!));
}

describe('README configuration table', () => {
  it('lists every FERRUM_* setting the code reads', () => {
    const table = documented();
    expect(table.size).toBeGreaterThan(10);
    expect([...settingsRead()].filter((name) => !table.has(name)).sort()).toEqual([]);
  });
});
