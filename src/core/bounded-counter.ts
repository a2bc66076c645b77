import type { RedisClient } from './redis.js';
import { scripts } from './scripts.js';

const script = scripts.boundedCounter;

/** Adds `change` to the counter at `key` unless it would pass `allowance`; false (nothing added) then. */
export async function boundedAdd(redis: RedisClient, key: string, change: number, allowance: number): Promise<boolean> {
  return (await script.run<number>(redis, [key], [change, allowance])) !== -1;
}

/** Takes `amount` off the counter at `key` (never below 0). */
export async function boundedRelease(redis: RedisClient, key: string, amount: number): Promise<void> {
  if (amount > 0) await script.run<number>(redis, [key], [-amount, 0]);
}
