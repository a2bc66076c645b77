import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';

type Arg = string | number | Buffer;

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

/** A Lua script run by EVALSHA, falling back to EVAL when the server has not cached it yet. */
export class LuaScript {
  readonly sha: string;
  private shifted: { offsetMs: number; source: string; sha: string } | null = null;

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha = sha1(source);
  }

  async run<T = unknown>(redis: Redis, keys: string[], args: Arg[] = []): Promise<T> {
    const { sha, source } = this.forClock(scriptClock.offsetMs);
    try {
      return (await redis.evalsha(sha, keys.length, ...keys, ...args)) as T;
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return (await redis.eval(source, keys.length, ...keys, ...args)) as T;
    }
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

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

const INCLUDE = /^--@include (\S+)[ \t]*$/gm;

/**
 * A Lua file's text with its `--@include <path>` lines (paths relative to the file) replaced
 * by the files they name, themselves resolved; a file already included is left out the second
 * time, so shared libraries may include each other.
 */
export function luaSource(file: URL, included = new Set<string>()): string {
  included.add(fileURLToPath(file));
  return fs.readFileSync(file, 'utf8').replace(INCLUDE, (_line, relative: string) => {
    const target = new URL(relative, file);
    return included.has(fileURLToPath(target)) ? '' : luaSource(target, included);
  });
}

/** Loads `<name>.lua` (includes resolved) from the folder of the module whose import.meta.url is given. */
export function loadLua(moduleUrl: string, name: string): LuaScript {
  return new LuaScript(name, luaSource(new URL(`./${name}.lua`, moduleUrl)));
}
