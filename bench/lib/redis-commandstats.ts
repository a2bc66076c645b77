// With BENCH_PROFILE, MQ benches print where Redis spent its time on a phase: INFO commandstats
// since a RESETSTAT (the script, and the commands it ran inside, are rows of their own).
import type { Redis } from 'ioredis';

/** Starts counting afresh. */
export async function resetCommandStats(redis: Redis): Promise<void> {
  await redis.config('RESETSTAT');
}

/** The busiest commands since the reset; with `messages`, also µs per message. */
export async function printCommandStats(redis: Redis, messages?: number): Promise<void> {
  const rows = [
    ...(await redis.info('commandstats')).matchAll(/^cmdstat_(\S+):calls=(\d+),usec=(\d+),usec_per_call=([\d.]+)/gm),
  ];
  rows.sort((a, b) => Number(b[3]) - Number(a[3]));
  for (const [, name, calls, usec, perCall] of rows.slice(0, 12)) {
    const perMessage = messages ? ` ${(Number(usec) / messages).toFixed(2).padStart(6)} µs/message` : '';
    console.log(
      `    redis ${name!.padEnd(16)} ${calls!.padStart(8)} calls ${(Number(usec) / 1000).toFixed(0).padStart(7)} ms ${perCall} µs/call${perMessage}`,
    );
  }
}
