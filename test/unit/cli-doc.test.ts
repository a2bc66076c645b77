import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/program.js';

/** docs/cli.md, the command-line client's reference. */
const section = fs.readFileSync(path.join(import.meta.dirname, '../../docs/cli.md'), 'utf8');

describe('docs/cli.md', () => {
  it('documents every command group, the client ones and the server ones', () => {
    const clientGroups = buildProgram()
      .commands.map((command) => command.name())
      .filter((name) => name !== 'help');
    expect(clientGroups).toEqual(expect.arrayContaining(['clusters', 'runners', 'worker']));
    for (const group of [...clientGroups, 'start', 'controller', 'runner', 'admin']) {
      expect(section, group).toMatch(new RegExp(`ferrum (?:\\S+ \\| )?${group}\\b`));
    }
  });
});
