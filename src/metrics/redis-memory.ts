import { mastersOf, type RedisClient } from '../core/redis.js';

/** How much memory a Redis server uses and may use (`maxmemory`; 0: no limit), in bytes. */
export interface RedisMemory {
  used: number;
  max: number;
}

/** `used_memory` and `maxmemory` from an INFO memory reply. */
export function memoryOf(info: string): RedisMemory {
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return { used: field('used_memory'), max: field('maxmemory') };
}

/** The share of its limit a server uses (0 without a limit). */
const fullness = ({ used, max }: RedisMemory) => (max > 0 ? used / max : 0);

/**
 * The memory of the master closest to its `maxmemory` (one for standalone Redis): a Cluster
 * refuses writes to a slot as soon as its master is full, however empty the others are.
 */
export async function fullestMaster(redis: RedisClient): Promise<RedisMemory> {
  const masters = await Promise.all(mastersOf(redis).map(async (node) => memoryOf(await node.info('memory'))));
  return masters.reduce((fullest, master) => (fullness(master) > fullness(fullest) ? master : fullest));
}
