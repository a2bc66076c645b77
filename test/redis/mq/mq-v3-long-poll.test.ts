import { describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { mqTestFile, uniqueQueue, useMqClient } from '../../helpers/mq.js';
import { useTestServer } from '../../helpers/test-file.js';
import { scaled } from '../../helpers/pace.js';

const file = mqTestFile({ FERRUM_MQ_MIN_TIMEOUT: '1' });

async function timedReserve(queue: string, options: Record<string, unknown>) {
  const started = performance.now();
  const messages = await file.mq.reserve(queue, options);
  return { messages, at: performance.now(), elapsed: performance.now() - started };
}

const waiterCount = () => file.server.running.ctx.mq.hub.waiterCount;

async function untilWaiting(count: number, waiters = waiterCount): Promise<void> {
  await eventually(() => waiters() >= count, scaled(15_000), `${count} waiting requests`);
}

// Timing tests: run one at a time (not concurrently) and retried, since a loaded CI machine can stall a
// process for longer than the bounds these check.
describe('long-poll', { retry: 2 }, () => {
  it('returns within 100 ms of a post', async () => {
    const queue = uniqueQueue('wake');
    await file.mq.createQueue(queue);
    const waiters = waiterCount();
    const waiting = timedReserve(queue, { wait: 10 });
    await untilWaiting(waiters + 1);
    await file.mq.postBodies(queue, 'wake up');
    const posted = performance.now();
    const result = await waiting;
    expect(result.messages.map((message) => message.body)).toEqual(['wake up']);
    expect(result.at - posted).toBeLessThan(scaled(100));
  });

  it('an empty wait of 2 s returns after about 2 s with no messages', async () => {
    const queue = uniqueQueue('empty-wait');
    await file.mq.createQueue(queue);
    const result = await timedReserve(queue, { wait: 2 });
    expect(result.messages).toEqual([]);
    expect(result.elapsed).toBeGreaterThanOrEqual(1950);
    expect(result.elapsed).toBeLessThan(scaled(3000));
  });

  it('wait 0 answers at once', async () => {
    const queue = uniqueQueue('no-wait');
    await file.mq.createQueue(queue);
    expect((await timedReserve(queue, { wait: 0 })).elapsed).toBeLessThan(scaled(200));
  });

  it('a delayed message falling due ends the wait', async () => {
    const queue = uniqueQueue('due');
    await file.mq.post(queue, [{ body: 'delayed', delay: 1 }]);
    const result = await timedReserve(queue, { wait: 5 });
    expect(result.messages.map((message) => message.body)).toEqual(['delayed']);
    expect(result.elapsed).toBeGreaterThan(700);
    expect(result.elapsed).toBeLessThan(scaled(1500));
  });

  it("a reservation timing out ends another consumer's wait", async () => {
    const queue = uniqueQueue('lapse');
    await file.mq.postBodies(queue, 'retry me');
    await file.mq.reserve(queue, { timeout: 1 });
    const result = await timedReserve(queue, { wait: 5 });
    expect(result.messages[0]).toMatchObject({ body: 'retry me', reserved_count: 2 });
    expect(result.elapsed).toBeLessThan(scaled(1500));
  });

  it('a release ends the wait', async () => {
    const queue = uniqueQueue('release');
    await file.mq.postBodies(queue, 'released');
    const [held] = await file.mq.reserve(queue, { timeout: 60 });
    const waiters = waiterCount();
    const waiting = timedReserve(queue, { wait: 10 });
    await untilWaiting(waiters + 1);
    await file.mq.http.post(file.mq.path(queue, `/messages/${held.id}/release`), {
      reservation_id: held.reservation_id,
    });
    const released = performance.now();
    const result = await waiting;
    expect(result.messages[0].id).toBe(held.id);
    expect(result.at - released).toBeLessThan(scaled(100));
  });

  it('a client that goes away stops waiting', async () => {
    const queue = uniqueQueue('abort');
    await file.mq.createQueue(queue);
    const before = waiterCount();
    const controller = new AbortController();
    const request = fetch(file.server.url + file.mq.path(queue, '/reservations'), {
      method: 'POST',
      headers: { Authorization: `OAuth ${file.server.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ wait: 20 }),
      signal: controller.signal,
    }).catch(() => 'aborted');
    await untilWaiting(before + 1);
    controller.abort();
    expect(await request).toBe('aborted');
    await eventually(() => waiterCount() === before, 5000, 'the aborted request to stop waiting');
    // The queue is unaffected: a message posted now is there for the next consumer.
    await file.mq.postBodies(queue, 'still here');
    expect((await file.mq.reserve(queue)).map((message) => message.body)).toEqual(['still here']);
  });
});

describe('many waiting consumers', () => {
  it(
    '1000 waiting requests share the process connections; each gets one message as they arrive',
    async () => {
      const queue = uniqueQueue('thousand');
      await file.mq.createQueue(queue);
      const connectionsBefore = ((await file.observer.client('LIST')) as string).trim().split('\n').length;
      const consumers = Array.from({ length: 1000 }, () => file.mq.reserve(queue, { wait: 20, n: 1 }));
      await untilWaiting(1000);
      const connectionsDuring = ((await file.observer.client('LIST')) as string).trim().split('\n').length;
      expect(connectionsDuring - connectionsBefore).toBeLessThanOrEqual(1);
      for (let batch = 0; batch < 10; batch++) {
        await file.mq.post(
          queue,
          Array.from({ length: 100 }, (_, i) => ({ body: `m${batch * 100 + i}` })),
        );
      }
      const received = (await Promise.all(consumers)).map((messages) => messages.map((message) => message.body));
      expect(received.every((messages) => messages.length === 1)).toBe(true);
      expect(new Set(received.flat()).size).toBe(1000);
      expect(waiterCount()).toBe(0);
    },
    scaled(30_000),
  );
});

describe('shutdown', () => {
  // A server of its own: the test stops its controller, the fixture's stop after it the rest (its Redis).
  const own = useTestServer();
  const client = useMqClient(own);

  it('answers waiting requests when the server stops instead of holding it open', async () => {
    const queue = uniqueQueue('shutdown');
    await client.createQueue(queue);
    const waiting = client.http.post(client.path(queue, '/reservations'), { wait: 25 }).catch((error: Error) => error);
    await untilWaiting(1, () => own.running.ctx.mq.hub.waiterCount);
    const started = performance.now();
    await own.running.stop();
    expect(performance.now() - started).toBeLessThan(scaled(3000));
    const answer = await waiting;
    expect(answer).not.toBeInstanceOf(Error);
    expect((answer as { status: number; body: unknown }).status).toBe(200);
    expect((answer as { body: unknown }).body).toEqual({ messages: [] });
  });
});
