// With BENCH_PROFILE, MQ benches print where Redis spent its time on a phase: INFO commandstats
// since a RESETSTAT, or summed over the stretches one side of a phase ran (the script, and the
// commands it ran inside, are rows of their own).
import type { Redis } from 'ioredis';

/** Calls and µs per command. */
export type CommandStats = Map<string, { calls: number; usec: number }>;

/** Starts counting afresh. */
export async function resetCommandStats(redis: Redis): Promise<void> {
  await redis.config('RESETSTAT');
}

/** The counts so far. */
export async function readCommandStats(redis: Redis): Promise<CommandStats> {
  const stats: CommandStats = new Map();
  for (const [, name, calls, usec] of (await redis.info('commandstats')).matchAll(
    /^cmdstat_(\S+):calls=(\d+),usec=(\d+)/gm,
  ))
    stats.set(name!, { calls: Number(calls), usec: Number(usec) });
  return stats;
}

/** Adds to `into` what was counted between `before` and `after` (but the INFO calls that read them). */
export function addCommandStats(into: CommandStats, before: CommandStats, after: CommandStats): void {
  for (const [name, { calls, usec }] of after) {
    if (name === 'info') continue;
    const earlier = before.get(name) ?? { calls: 0, usec: 0 };
    const sum = into.get(name) ?? { calls: 0, usec: 0 };
    into.set(name, { calls: sum.calls + calls - earlier.calls, usec: sum.usec + usec - earlier.usec });
  }
}

/** The busiest commands of `stats`; with `messages`, also µs per message. */
export function printStats(stats: CommandStats, messages?: number): void {
  const rows = [...stats].filter(([, { calls }]) => calls > 0).sort((a, b) => b[1].usec - a[1].usec);
  for (const [name, { calls, usec }] of rows.slice(0, 12)) {
    const perMessage = messages ? ` ${(usec / messages).toFixed(2).padStart(6)} µs/message` : '';
    console.log(
      `    redis ${name.padEnd(16)} ${String(calls).padStart(8)} calls ${(usec / 1000).toFixed(0).padStart(7)} ms ${(usec / calls).toFixed(2)} µs/call${perMessage}`,
    );
  }
}

/** The busiest commands since the reset; with `messages`, also µs per message. */
export async function printCommandStats(redis: Redis, messages?: number): Promise<void> {
  printStats(await readCommandStats(redis), messages);
}
