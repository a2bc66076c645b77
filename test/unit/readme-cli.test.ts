import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/program.js';

const readme = fs.readFileSync(path.join(import.meta.dirname, '../../README.md'), 'utf8');
/** The README's command-line client section. */
const section = readme.slice(readme.indexOf('## Command-line client'), readme.indexOf('## Running in containers'));

describe("the README's command-line section", () => {
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
