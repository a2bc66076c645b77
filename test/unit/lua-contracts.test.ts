import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadedScripts, luaFlagsOf, luaSource, withoutUnusedFunctions, type LuaScript } from '../../src/core/lua.js';
import { QUEUE_KEY_PARTS, Outcome } from '../../src/mq/scripts.js';
import { TASK_STATUSES } from '../../src/worker/types.js';

// The contract between each Lua script and its TypeScript callers, checked rather than commented:
// the `--@keys` header line is the one list of a script's keys; the script reads no key it does
// not declare and declares none it does not read; callers passing another count are refused at
// run time (LuaScript.run), which every suite exercises; shared constants agree on both sides.
const ROOT = path.resolve(import.meta.dirname, '../..');

function filesUnder(folder: string, ending: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(ending))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

const luaFiles = filesUnder('src', '.lua');
const includedFiles = new Set(
  luaFiles.flatMap((file) =>
    [...fs.readFileSync(file, 'utf8').matchAll(/^--@include (\S+)/gm)].map((match) =>
      path.resolve(path.dirname(file), match[1]!),
    ),
  ),
);

/** A Lua constant `local NAME = <number>` (or several, `local A, B = 1, 2`) from a source. */
function luaConstants(source: string): Map<string, number> {
  const constants = new Map<string, number>();
  for (const [, names, values] of source.matchAll(/^local ([A-Z_][A-Z0-9_, ]*) = ([\d, ]+)$/gm)) {
    const valueList = values!.split(',').map((value) => Number(value.trim()));
    names!.split(',').forEach((name, i) => constants.set(name.trim(), valueList[i]!));
  }
  return constants;
}

/**
 * The highest KEYS position `source` reads at a position known in advance (KEYS[3],
 * KEYS[COUNT + 1]), with the constants of `context` (the resolved script).
 */
function highestKeyRead(source: string, context = source): number {
  const constants = luaConstants(context);
  let highest = 0;
  for (const [, index] of source.matchAll(/KEYS\[([A-Z_0-9 +]+)\]/g)) {
    const value = index!
      .split('+')
      .map((term) => term.trim())
      .reduce((sum, term) => sum + (/^\d+$/.test(term) ? Number(term) : (constants.get(term) ?? NaN)), 0);
    if (!Number.isNaN(value)) highest = Math.max(highest, value);
  }
  return highest;
}

const readsKeysByVariable = (source: string) => /#KEYS|KEYS\[[a-z_]/.test(source);

beforeAll(async () => {
  // Every module that loads scripts, so that each registers its scripts.
  const loaders = filesUnder('src', '.ts').filter((file) => fs.readFileSync(file, 'utf8').includes('loadLua('));
  for (const file of loaders) await import(file);
});

describe('Lua contracts', () => {
  it('every .lua file is a script some module loads, or a library a script includes', () => {
    const loaded = new Set(loadedScripts.map((script) => script.file));
    const orphans = luaFiles.filter((file) => !loaded.has(file) && !includedFiles.has(file));
    expect(orphans.map((file) => path.relative(ROOT, file))).toEqual([]);
    for (const script of loadedScripts)
      expect(withoutUnusedFunctions(luaSource(new URL(`file://${script.file}`)))).toBe(script.source);
  });

  it('a script keeps the library functions it calls, directly or through another, and no others', () => {
    const source = [
      'local LIMIT = 10',
      'local function used_inside(x)',
      '  if x then',
      '    return LIMIT',
      '  end',
      'end',
      'local function unused(y)',
      '  return y',
      'end',
      'local function called(z)',
      '  return used_inside(z)',
      'end',
      'return called(1)',
      '',
    ].join('\n');
    const kept = withoutUnusedFunctions(source);
    expect(kept).toContain('local function used_inside(x)\n  if x then\n    return LIMIT\n  end\nend\n');
    expect(kept).toContain('local function called(z)');
    expect(kept).not.toContain('unused');
    expect(kept).toContain('return called(1)');
  });

  it('every script declares its keys, and reads exactly the keys it declares', () => {
    const broken: string[] = [];
    for (const script of unique(loadedScripts)) {
      const { names, rest } = script.keys;
      const where = path.relative(ROOT, script.file!);
      if (names.length === 0 && rest === null) {
        broken.push(`${where}: no --@keys line`);
        continue;
      }
      // A script declaring its own keys may include a library written for more keys (functions
      // it does not call): what it reads itself must be declared.
      const own = fs.readFileSync(script.file!, 'utf8');
      const ownRead = highestKeyRead(/^--@keys /m.test(own) ? own : script.source, script.source);
      const highest = highestKeyRead(script.source);
      if (ownRead > names.length && rest === null)
        broken.push(`${where}: reads KEYS[${ownRead}] but declares ${names.length} keys`);
      if (rest === null && highest < names.length)
        broken.push(
          `${where}: declares ${names.length} keys (${names.join(', ')}) but reads only up to KEYS[${highest}]`,
        );
      if (rest !== null && !readsKeysByVariable(script.source) && highest <= names.length)
        broken.push(`${where}: declares a variable tail (${rest}...) it never reads`);
      if (new Set(names).size !== names.length) broken.push(`${where}: a key name twice in ${names.join(', ')}`);
    }
    expect(broken).toEqual([]);
  });

  it('a caller passing another number of keys is refused before Redis sees the script', async () => {
    const script = loadedScripts.find((candidate) => candidate.name === 'finish-call')!;
    expect(script.keys).toEqual({ names: ['call', 'log'], rest: null });
    await expect(script.run(null as never, ['only-one'])).rejects.toThrow(
      'Lua script finish-call takes 2 keys (call, log), given 1',
    );
  });

  it("a queue's keys are named alike in scripts.ts and includes/queue-keys.lua, and the outcome codes agree", () => {
    const common = fs.readFileSync(path.join(ROOT, 'src/mq/lua/includes/queue-keys.lua'), 'utf8');
    const declared = /^--@keys (.+)$/m.exec(common)![1]!.split(' ');
    expect(declared).toEqual([...QUEUE_KEY_PARTS]);
    const constants = luaConstants(common);
    expect(constants.get('QUEUE_KEY_COUNT')).toBe(QUEUE_KEY_PARTS.length);
    expect({
      ok: constants.get('OK'),
      notFound: constants.get('NOT_FOUND'),
      timedOut: constants.get('TIMED_OUT'),
      reserved: constants.get('RESERVED'),
      notReserved: constants.get('NOT_RESERVED'),
    }).toEqual(Outcome);
  });

  it('the task statuses are listed alike in types.ts and task-lib.lua', () => {
    const lib = fs.readFileSync(path.join(ROOT, 'src/worker/tasks/lua/task-lib.lua'), 'utf8');
    const statuses = /^local STATUSES = \{(.+)\}$/m
      .exec(lib)![1]!
      .split(',')
      .map((status) => status.trim().replace(/'/g, ''));
    expect(statuses).toEqual([...TASK_STATUSES]);
  });
});

function unique(scripts: LuaScript[]): LuaScript[] {
  return [...new Map(scripts.map((script) => [script.file, script])).values()];
}

describe('Lua script flags (a full Redis)', () => {
  const named = (script: LuaScript) => path.relative(ROOT, script.file!);

  it('a shebang stays the first line of the script Redis runs, and only there', () => {
    for (const script of unique(loadedScripts)) {
      const own = fs.readFileSync(script.file!, 'utf8');
      expect(script.source.startsWith('#!'), named(script)).toBe(own.startsWith('#!'));
      expect(script.source.indexOf('#!', 1), named(script)).toBe(-1);
    }
  });

  it('only scripts that remove or move what is stored may run on a full Redis (allow-oom)', () => {
    const allowOom = unique(loadedScripts)
      .filter((script) => luaFlagsOf(script.source).includes('allow-oom'))
      .map(named)
      .sort();
    expect(allowOom).toEqual(
      [
        'src/auth/lua/mark-project.lua',
        'src/auth/lua/set-suspension-flag.lua',
        'src/cache/lua/delete-item.lua',
        'src/cache/lua/drop-items.lua',
        'src/cache/lua/sweep.lua',
        'src/cache/lua/unhold.lua',
        'src/core/lua/remove.lua',
        'src/functions/lua/delete-app.lua',
        'src/functions/lua/delete-route.lua',
        'src/mq/lua/clear-queue.lua',
        'src/mq/lua/delete-messages.lua',
        'src/mq/lua/delete-queue.lua',
        'src/mq/lua/push/acknowledge.lua',
        'src/mq/lua/release.lua',
        'src/mq/lua/remove-subscribers.lua',
        'src/mq/lua/reserve.lua',
        'src/mq/lua/sweep.lua',
        'src/mq/lua/touch.lua',
        'src/mq/lua/withdraw-messages.lua',
        'src/worker/codes/lua/delete-code.lua',
        'src/worker/schedules/lua/cancel-schedule.lua',
        'src/worker/tasks/lua/cancel-task.lua',
      ].sort(),
    );
  });
});
