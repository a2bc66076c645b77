import { scripts } from './scripts.js';
import type { RedisClient } from './redis.js';

type Removing = 'DEL' | 'HDEL' | 'SREM' | 'ZREM';

/**
 * Removals from several keys of one hash tag, run as one step (remove.lua) that works on a full
 * Redis too: a MULTI is refused whole at `maxmemory`, even one that only removes, so that no
 * record could ever be deleted to free space. Only commands that remove can be added.
 */
export class Removals {
  private readonly keys: string[] = [];
  private readonly args: string[] = [];

  del(...keys: string[]): this {
    for (const key of keys) this.step('DEL', key, []);
    return this;
  }

  hdel(key: string, ...fields: string[]): this {
    return this.step('HDEL', key, fields);
  }

  srem(key: string, ...members: string[]): this {
    return this.step('SREM', key, members);
  }

  zrem(key: string, ...members: string[]): this {
    return this.step('ZREM', key, members);
  }

  async run(redis: RedisClient): Promise<void> {
    if (this.args.length === 0) return;
    const steps = await scripts.remove.run<number>(redis, this.keys, this.args);
    if (steps < 0) throw new Error('remove.lua refused a step that does not remove');
  }

  private step(command: Removing, key: string, members: string[]): this {
    if (command !== 'DEL' && members.length === 0) return this;
    let position = this.keys.indexOf(key);
    if (position < 0) position = this.keys.push(key) - 1;
    this.args.push(command, String(position + 1), String(members.length), ...members);
    return this;
  }
}
