// Compacting a Redis's append-only file before a measured phase. Redis rewrites its AOF by itself
// once the file has doubled since the last rewrite (auto-aof-rewrite-percentage 100): a fork whose
// child writes the whole dataset out, on one of the machine's two cores, beside whatever phase of
// a bench happens to write the byte that crosses the line. Rewriting it first leaves the next
// automatic rewrite a whole dataset's worth of writes away.
import { sleep } from '../../src/core/time.js';
import type { Redis } from 'ioredis';

/** Rewrites the AOF of `redis` (one with appendonly yes) and waits until the rewrite is done. */
export async function compactAof(redis: Redis): Promise<void> {
  await waitForNoRewrite(redis);
  await redis.bgrewriteaof();
  await waitForNoRewrite(redis);
}

async function waitForNoRewrite(redis: Redis): Promise<void> {
  for (;;) {
    const persistence = await redis.info('persistence');
    if (/aof_rewrite_in_progress:0/.test(persistence) && /aof_rewrite_scheduled:0/.test(persistence)) return;
    await sleep(50);
  }
}
