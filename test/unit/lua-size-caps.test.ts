import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The sizes lint holds TypeScript to (eslint.config.js: max-lines, max-lines-per-function), for
// the Lua scripts too, where no linter runs: a file or a function longer than this is split
// (a library function into its own file of an `includes/` folder, see src/mq/lua/includes/).
const ROOT = path.resolve(import.meta.dirname, '../..');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 60;

function luaFiles(): string[] {
  return fs
    .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.lua'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** A function's first line: `local function f(`, `function f(`, `local f = function(`, at any depth. */
const FUNCTION_START = /^(\s*)(?:local\s+)?(?:function\s+([\w.:]+)|([\w.]+)\s*=\s*function\b)/;

/** Each function of `source` with its length in lines, from its first line through its `end` at the same indentation. */
function luaFunctionLengths(source: string): { name: string; line: number; lines: number }[] {
  const lines = source.split('\n');
  const found: { name: string; line: number; lines: number }[] = [];
  lines.forEach((text, index) => {
    const start = FUNCTION_START.exec(text);
    if (!start) return;
    const end = new RegExp(`^${start[1]}end\\b`);
    // A one-line function (`function f() return 1 end`) ends on its own line; one never ended measures 0.
    const last = /\bend\b[\s),]*$/.test(text)
      ? index
      : lines.findIndex((candidate, at) => at > index && end.test(candidate));
    const length = last < 0 ? 0 : last - index + 1;
    found.push({ name: start[2] ?? start[3]!, line: index + 1, lines: length });
  });
  return found;
}

describe('Lua size caps', () => {
  it(`no .lua file is over ${MAX_FILE_LINES} lines`, () => {
    const files = luaFiles();
    expect(files.length).toBeGreaterThan(50);
    const long = files
      .map((file) => ({ file: path.relative(ROOT, file), lines: fs.readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });

  it(`no Lua function is over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = luaFiles().flatMap((file) =>
      luaFunctionLengths(fs.readFileSync(file, 'utf8'))
        .filter((fn) => fn.lines > MAX_FUNCTION_LINES || fn.lines < 1)
        .map((fn) => `${path.relative(ROOT, file)}:${fn.line} ${fn.name} (${fn.lines} lines)`),
    );
    expect(long).toEqual([]);
  });

  it('measures functions at any depth, from their first line through their end', () => {
    const source = [
      'local function outer(x)',
      '  local inner = function(y)',
      '    return y',
      '  end',
      '  return inner(x)',
      'end',
      'local function one() return 1 end',
      '',
    ].join('\n');
    expect(luaFunctionLengths(source)).toEqual([
      { name: 'outer', line: 1, lines: 6 },
      { name: 'inner', line: 2, lines: 3 },
      { name: 'one', line: 7, lines: 1 },
    ]);
  });
});
