import { describe, expect, it } from 'vitest';
import { QUEUE_KEY_PARTS } from '../../../src/mq/scripts.js';
import { uniqueQueue, useMqClient } from '../../helpers/mq.js';
import { useTestServer } from '../../helpers/test-file.js';
import { scaled } from '../../helpers/pace.js';

// A queue's info answers its ready, delayed and reserved counts (queue-info.lua): counted by
// ZCARD, with maintain()'s work bounded by BATCH, so a tenant's queue of a million delayed
// messages costs an info call no more than an empty queue's, and never holds Redis for others.
const server = useTestServer();
const mq = useMqClient(server);

const MILLION = 1_000_000;

async function medianInfoMs(queue: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const started = performance.now();
    await mq.info(queue);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[3]!;
}

describe('queue info on a queue of a million delayed messages', () => {
  it(
    'answers the counts in about the time of an empty queue (no scan)',
    async () => {
      const [big, small] = [uniqueQueue('million'), uniqueQueue('empty')];
      await mq.postBodies(big, 'first');
      await mq.postBodies(small, 'first');
      const ref = { projectId: server.projectId, name: big };
      const keys = server.running.ctx.mq.keys.queue(ref);
      const delayed = keys[QUEUE_KEY_PARTS.indexOf('delayed')]!;
      const redis = server.openRedis();
      try {
        // A million entries due far in the future, as many delayed posts would leave them.
        await redis.eval(
          "for i = 1, tonumber(ARGV[1]) do redis.call('ZADD', KEYS[1], 9e15, 'd' .. i) end return 1",
          1,
          delayed,
          MILLION,
        );
      } finally {
        redis.disconnect();
      }
      expect(await mq.info(big)).toMatchObject({ ready: 1, delayed: MILLION, reserved: 0 });
      const [bigMs, smallMs] = [await medianInfoMs(big), await medianInfoMs(small)];
      // A scan of a million entries alone takes Redis hundreds of milliseconds.
      expect(bigMs).toBeLessThan(smallMs + scaled(50));
    },
    scaled(120_000),
  );
});
