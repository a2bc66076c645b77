import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Redis } from 'ioredis';

type Arg = string | number | Buffer;

/** A Lua script run by EVALSHA, falling back to EVAL when the server has not cached it yet. */
export class LuaScript {
  readonly sha: string;

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run<T = unknown>(redis: Redis, keys: string[], args: Arg[] = []): Promise<T> {
    try {
      return (await redis.evalsha(this.sha, keys.length, ...keys, ...args)) as T;
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return (await redis.eval(this.source, keys.length, ...keys, ...args)) as T;
    }
  }
}

/** Loads `<name>.lua` from the folder of the module whose import.meta.url is given. */
export function loadLua(moduleUrl: string, name: string): LuaScript {
  const source = fs.readFileSync(new URL(`./${name}.lua`, moduleUrl), 'utf8');
  return new LuaScript(name, source);
}
