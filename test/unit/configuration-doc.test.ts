import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configurationReference, SETTINGS_SECTIONS } from '../../src/core/config/reference.js';

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

/** Every variable of the settings lists, once per list it is in. */
const listed = SETTINGS_SECTIONS.flatMap(({ settings }) => Object.values(settings).map((setting) => setting.name));

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` writes from the settings lists', () => {
    const written = fs.readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
    expect(written, 'docs/configuration.md is stale: run `npm run docs:config`').toBe(configurationReference());
  });

  it('lists every FERRUM_* setting the code reads', () => {
    const names = new Set(listed);
    expect(names.size).toBeGreaterThan(100);
    expect([...settingsRead()].filter((name) => !names.has(name)).sort()).toEqual([]);
  });

  it('lists each setting in one list only, with a meaning', () => {
    expect(listed.filter((name, index) => listed.indexOf(name) !== index)).toEqual([]);
    const unexplained = SETTINGS_SECTIONS.flatMap(({ settings }) => Object.values(settings))
      .filter((setting) => setting.meaning.trim().length < 10)
      .map((setting) => setting.name);
    expect(unexplained).toEqual([]);
  });
});
