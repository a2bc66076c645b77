import { describe, expect, it } from 'vitest';
import { useMqClient, uniqueQueue } from '../../helpers/mq.js';
import { useTestServer } from '../../helpers/test-file.js';
import { useSubscribers } from '../../helpers/subscribers-of-file.js';
import { PushDeliverer } from '../../../src/mq/push/deliverer.js';
import { taskQueuerFor } from '../../../controller/loops/push-deliverer.js';
import { eventually } from '../../helpers/eventually.js';
import { OutboundGuard } from '../../../src/core/outbound-guard.js';
import { scaled } from '../../helpers/pace.js';

const server = useTestServer({
  FERRUM_MQ_PUSH_TIMEOUT_MS: String(scaled(5000)),
  FERRUM_MQ_PUSH_QUEUE_CONCURRENCY: '4',
  FERRUM_MQ_PUSH_CONCURRENCY: '16',
});
const mq = useMqClient(server);
const subscriber = useSubscribers();

async function multicastQueue(urls: string[]): Promise<string> {
  const name = uniqueQueue('push');
  const subs = urls.map((url, i) => ({ name: `s${i}`, url }));
  const response = await mq.http.put(mq.path(name), {
    queue: { type: 'multicast', push: { subscribers: subs, retries: 0 } },
  });
  expect(response.status, response.text).toBe(200);
  return name;
}

describe('push delivery concurrency', () => {
  it('a hanging subscriber holds at most the per-queue limit and does not delay another queue', async () => {
    const hanging = await subscriber(() => 'hang');
    const fast = await subscriber();
    const stuck = await multicastQueue([hanging.url]);
    const other = await multicastQueue([fast.url]);
    await mq.postBodies(stuck, ...Array.from({ length: 20 }, (_, i) => `stuck ${i}`));
    await hanging.waitFor(4);
    const posted = Date.now();
    await mq.postBodies(other, 'not stuck');
    const [received] = await fast.waitFor(1, 2000);
    expect(received!.at - posted).toBeLessThan(scaled(1000));
    // Bounded: only the per-queue limit of the stuck queue's messages is in delivery.
    // eslint-disable-next-line no-restricted-syntax -- a fixed window is the point: nothing more may happen within it (no delivery past the bound)
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hanging.received).toHaveLength(4);
  });

  it('delivers many messages to several subscribers concurrently, each exactly once', async () => {
    const slow = await Promise.all([0, 1, 2].map(() => subscriber()));
    const queue = await multicastQueue(slow.map((s) => s.url));
    const bodies = Array.from({ length: 60 }, (_, i) => `b${i}`);
    await mq.postBodies(queue, ...bodies);
    for (const s of slow) {
      await s.waitFor(60, 15_000);
      expect(s.received.map((r) => r.body).sort()).toEqual([...bodies].sort());
    }
    await eventually(async () => ((await mq.info(queue)).size === 0 ? true : undefined), 15_000);
  });

  it('a second controller process waits for the lease: messages are still delivered once each', async () => {
    const { ctx } = server.running;
    const service = ctx.mq;
    const second = new PushDeliverer({
      redis: ctx.redis,
      keys: ctx.keys,
      bus: ctx.bus,
      mq: service,
      log: server.running.app.log,
      config: ctx.config.mq.push,
      publicUrl: server.url,
      guard: new OutboundGuard(ctx.config.outboundAllow),
      queueTask: taskQueuerFor(ctx),
      budget: ctx.budget,
    });
    second.start();
    try {
      const sub = await subscriber();
      const queue = await multicastQueue([sub.url]);
      await mq.postBodies(queue, ...Array.from({ length: 30 }, (_, i) => `m${i}`));
      await sub.waitFor(30);
      // eslint-disable-next-line no-restricted-syntax -- a fixed window is the point: nothing more may happen within it (no delivery past the bound)
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(sub.received).toHaveLength(30);
      expect(second.deliveriesInFlight).toBe(0);
    } finally {
      await second.stop();
    }
  });
});
