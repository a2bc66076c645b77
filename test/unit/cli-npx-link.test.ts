import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const readJson = (file: string) =>
  JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, unknown>;

// `npx ferrum` runs a bin npm linked into node_modules/.bin at once, but installs the project into its
// own cache on every call when the root package.json declares the bin (issue #45: npx start time).
describe('the ferrum command is linked from a workspace package', () => {
  it('the root package.json declares no bin, and its workspace package declares ferrum', () => {
    const root = readJson('package.json');
    expect(root.bin).toBeUndefined();
    expect(root.workspaces).toContain('packages/cli');
    const cli = readJson('packages/cli/package.json') as { bin: Record<string, string> };
    expect(Object.keys(cli.bin)).toEqual(['ferrum']);
  });

  it("the workspace bin runs the build's entry point, which the build makes from bin/ferrum.ts", () => {
    const shim = fs.readFileSync(path.join(ROOT, 'packages/cli/ferrum.js'), 'utf8');
    expect(shim.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(shim).toMatch(/^import '\.\.\/\.\.\/dist\/bin\/ferrum\.js';$/m);
    expect(fs.existsSync(path.join(ROOT, 'bin/ferrum.ts'))).toBe(true);
    expect(fs.statSync(path.join(ROOT, 'packages/cli/ferrum.js')).mode & 0o111).not.toBe(0);
  });

  it('npm install linked node_modules/.bin/ferrum to it', () => {
    const linked = fs.realpathSync(path.join(ROOT, 'node_modules/.bin/ferrum'));
    expect(linked).toBe(fs.realpathSync(path.join(ROOT, 'packages/cli/ferrum.js')));
  });
});
