// The one loader of Ferrum's Lua scripts. Conventions every script follows:
// - a header comment: `--@include <file>` lines first (shared libraries, resolved here), a
//   `--@keys <name> ...` line (the keys in KEYS order; `<name>...` for a variable tail), then
//   prose for ARGV and what it returns;
// - one return convention: outcomes are values, never Redis errors (no error_reply): a number
//   (a count, or a code where negative means the record is missing), or a table whose first
//   element is the code or status and the rest its details (`{'stored', cas}`, `{1, 'queued'}`);
//   each caller turns these into domain results or HttpErrors in one place;
// - scripts that read the time (the MQ and cache libraries) read it through clock.lua, which tests may move (scriptClock).
// test/unit/lua-contracts.test.ts checks the header lines against the scripts and the constants
// both sides share.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './redis.js';

type Arg = string | number | Buffer;

type Evaluate = (script: string, keyCount: number, ...keysAndArgs: Arg[]) => Promise<unknown>;
/** ioredis's script commands, with the Buffer-reply variants it defines for every command (its types leave them out). */
interface Evaluator {
  evalsha: Evaluate;
  eval: Evaluate;
  evalshaBuffer: Evaluate;
  evalBuffer: Evaluate;
}

/**
 * The clock scripts read (clock.lua: Redis's TIME, one clock for every process) may be moved
 * forward by tests, so that waiting for a reservation or an expiry takes no real time. Outside
 * test mode the offset is always 0 and scripts run exactly as written.
 */
export const scriptClock = {
  offsetMs: 0,
  /** Test mode only (NODE_ENV=test or FERRUM_TEST_MODE=1): scripts see time `ms` later from now on. */
  advance(ms: number): void {
    if (process.env.NODE_ENV !== 'test' && process.env.FERRUM_TEST_MODE !== '1') {
      throw new Error('the script clock moves only in test mode');
    }
    this.offsetMs += ms;
  },
  /** What scripts take as now, in epoch ms, as near as this process can tell. */
  now(): number {
    return Date.now() + this.offsetMs;
  },
};

const CLOCK_OFFSET_LINE = 'local TEST_CLOCK_OFFSET_MS = 0';

/**
 * The keys a script takes, from its `--@keys a b c` header line (the script's own, else that of
 * the library it includes): names in KEYS order; a last name ending in `...` stands for a
 * variable number of keys after the fixed ones. test/unit/lua-contracts.test.ts checks the
 * line against what the script reads and what its callers pass.
 */
export interface LuaKeys {
  names: readonly string[];
  /** The variable tail's name, or null when the script takes exactly `names`. */
  rest: string | null;
}

/** Every script loaded in this process (for the contract test). */
export const loadedScripts: LuaScript[] = [];

/** A Lua script run by EVALSHA, falling back to EVAL when the server has not cached it yet. */
export class LuaScript {
  readonly sha: string;
  private shifted: { offsetMs: number; source: string; sha: string } | null = null;

  constructor(
    readonly name: string,
    readonly source: string,
    readonly keys: LuaKeys = { names: [], rest: '...' },
    /** Where it was read from (for the contract test), when it came from a file. */
    readonly file: string | null = null,
  ) {
    this.sha = sha1(source);
  }

  async run<T = unknown>(redis: RedisClient, keys: string[], args: Arg[] = []): Promise<T> {
    return this.runAs<T>(redis, keys, args, 'text');
  }

  /**
   * `run`, its reply's strings left as the bytes Redis sent (Buffers; numbers stay numbers): no
   * decoding of a reply whose large parts are only passed on.
   */
  async runForBytes<T = unknown>(redis: RedisClient, keys: string[], args: Arg[] = []): Promise<T> {
    return this.runAs<T>(redis, keys, args, 'bytes');
  }

  private async runAs<T>(redis: RedisClient, keys: string[], given: Arg[], reply: 'text' | 'bytes'): Promise<T> {
    this.checkKeyCount(keys.length);
    const args = given.some(isLargeText) ? given.map(asSent) : given;
    const { sha, source } = this.forClock(scriptClock.offsetMs);
    const client = redis as unknown as Evaluator;
    const [evalsha, evaluate] =
      reply === 'bytes' ? (['evalshaBuffer', 'evalBuffer'] as const) : (['evalsha', 'eval'] as const);
    try {
      return (await client[evalsha](sha, keys.length, ...keys, ...args)) as T;
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return (await client[evaluate](source, keys.length, ...keys, ...args)) as T;
    }
  }

  /**
   * Queues this script in `transaction` (a MULTI) as EVAL with its source, never EVALSHA: Redis
   * reports a script it does not know at EXEC, failing that command alone while the rest of the
   * MULTI still runs.
   */
  queueIn(transaction: ChainableCommander, keys: string[], args: Arg[] = []): void {
    this.checkKeyCount(keys.length);
    const { source } = this.forClock(scriptClock.offsetMs);
    transaction.eval(source, keys.length, ...keys, ...args.map(asSent));
  }

  /** A caller passing other keys than the script takes is a bug that would corrupt data: refuse it. */
  private checkKeyCount(given: number): void {
    const { names, rest } = this.keys;
    if (rest === null ? given === names.length : given >= names.length) return;
    const expected = rest === null ? `${names.length}` : `at least ${names.length}`;
    throw new Error(`Lua script ${this.name} takes ${expected} keys (${names.join(', ')}), given ${given}`);
  }

  /** The script as written, or (test clock moved) with the offset in place of clock.lua's 0. */
  private forClock(offsetMs: number): { sha: string; source: string } {
    if (offsetMs === 0 || !this.source.includes(CLOCK_OFFSET_LINE)) return this;
    if (this.shifted?.offsetMs !== offsetMs) {
      const source = this.source.replace(CLOCK_OFFSET_LINE, `local TEST_CLOCK_OFFSET_MS = ${offsetMs}`);
      this.shifted = { offsetMs, source, sha: sha1(source) };
    }
    return this.shifted;
  }
}

/**
 * Text args at least this long go to Redis as their UTF-8 bytes: ioredis writes a large string
 * argument at more CPU than the same bytes, encoding included (1 MiB, measured on a loaded 2-core
 * machine: 16-17 ms against 12-13.5 ms; 64 KiB: no difference), and every large value a tenant
 * stores (cache values, message bodies) passes here.
 */
const LARGE_TEXT_ARG = 256 * 1024;

function isLargeText(arg: Arg): arg is string {
  return typeof arg === 'string' && arg.length >= LARGE_TEXT_ARG;
}

function asSent(arg: Arg): Arg {
  return isLargeText(arg) ? Buffer.from(arg) : arg;
}

/** Runs a MULTI: the replies in order, or the first command's error (a discarded MULTI rejects as a whole). */
export async function execTransaction(transaction: ChainableCommander): Promise<unknown[]> {
  const replies = (await transaction.exec()) ?? [];
  for (const [error] of replies) if (error) throw error;
  return replies.map(([, reply]) => reply);
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

const INCLUDE = /^--@include (\S+)[ \t]*$/gm;

/**
 * A Lua file's text with its `--@include <path>` lines (paths relative to the file) replaced
 * by the files they name, themselves resolved; a file already included is left out the second
 * time, so shared libraries may include each other. A script's shebang (`#!lua ...`, Redis 7's
 * script flags, see SHEBANG) stays its first line; a library may have none, as it would land
 * inside the script that includes it.
 */
export function luaSource(file: URL, included = new Set<string>()): string {
  const library = included.size > 0;
  included.add(fileURLToPath(file));
  const text = fs.readFileSync(file, 'utf8');
  if (library && text.startsWith('#!')) throw new Error(`${fileURLToPath(file)}: an included library has no shebang`);
  return text.replace(INCLUDE, (_line, relative: string) => {
    const target = new URL(relative, file);
    return included.has(fileURLToPath(target)) ? '' : luaSource(target, included);
  });
}

/**
 * A script's first line when it declares Redis 7 script flags. `#!lua` alone: a Redis at
 * `maxmemory` refuses the whole script before it runs (a script that adds data, all or nothing;
 * without a shebang Redis would refuse only its first write, after any removals before it).
 * `#!lua flags=allow-oom`: the script runs even then, for scripts that only remove or move
 * what is stored, so that space can be freed (docs/operations.md, "When Redis is full"). Either way the
 * script may touch only keys of its declared keys' slot on a Cluster, which every script does.
 */
export const SHEBANG = /^#!lua(?: flags=([\w,-]+))?\n/;

/** The script flags `source` declares (none without a shebang). */
export function luaFlagsOf(source: string): string[] {
  return SHEBANG.exec(source)?.[1]?.split(',') ?? [];
}

const KEYS_LINE = /^--@keys[ \t]+(.+)$/m;

/** The `--@keys` line of `own` (the script's file), else the first in its resolved source. */
export function luaKeysOf(own: string, resolved: string): LuaKeys {
  const line = KEYS_LINE.exec(own) ?? KEYS_LINE.exec(resolved);
  if (!line) return { names: [], rest: null };
  const words = line[1]!.trim().split(/\s+/);
  const last = words.at(-1)!;
  if (!last.endsWith('...')) return { names: words, rest: null };
  return { names: words.slice(0, -1), rest: last.slice(0, -3) };
}

/** A top-level `local function name(...)` through its closing `end` at the start of a line. */
const TOP_LEVEL_FUNCTION = /^local function ([A-Za-z_]\w*)\([^\n]*\n(?:(?!local function )[^\n]*\n)*?end\n/gm;

/**
 * `source` without the top-level local functions nothing in it calls. A script runs its whole
 * text on every call, shared libraries included: each function defined is a closure made per
 * call, so a script should define only those it uses.
 */
export function withoutUnusedFunctions(source: string): string {
  const blocks = [...source.matchAll(TOP_LEVEL_FUNCTION)].map((match) => ({ name: match[1]!, text: match[0] }));
  let rest = blocks.reduce((text, block) => text.replace(block.text, ''), source);
  const used = new Set<string>();
  for (let grew = true; grew;) {
    grew = false;
    for (const block of blocks) {
      if (used.has(block.name) || !new RegExp(`\\b${block.name}\\b`).test(rest)) continue;
      used.add(block.name);
      rest += block.text;
      grew = true;
    }
  }
  return blocks.reduce((text, block) => (used.has(block.name) ? text : text.replace(block.text, '')), source);
}

/** Loads `<name>.lua` (includes resolved, unused library functions left out) from the folder of the module whose import.meta.url is given. */
export function loadLua(moduleUrl: string, name: string): LuaScript {
  const file = new URL(`./${name}.lua`, moduleUrl);
  const source = withoutUnusedFunctions(luaSource(file));
  const script = new LuaScript(name, source, luaKeysOf(fs.readFileSync(file, 'utf8'), source), fileURLToPath(file));
  loadedScripts.push(script);
  return script;
}
