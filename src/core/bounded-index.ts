import type { RedisClient } from './redis.js';
import { scripts } from './scripts.js';

/** What claiming a name in a bounded index did. */
export type IndexClaim = 'present' | 'added' | 'full';

const CLAIMS: Record<number, IndexClaim> = { 0: 'full', 1: 'present', 2: 'added' };

/**
 * Adds `name` to the sorted-set index at `key` unless it already holds `maxNames` names, in one
 * step (bounded-index.lua): the index a count quota reads is then also what reserves a place
 * under it, and concurrent creations cannot pass it. Earlier releases add to the same index
 * after they create, so they keep counting alike.
 */
export async function claimInIndex(
  redis: RedisClient,
  key: string,
  name: string,
  maxNames: number,
): Promise<IndexClaim> {
  return CLAIMS[await scripts.boundedIndex.run<number>(redis, [key], [name, maxNames])]!;
}
