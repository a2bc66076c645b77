import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus } from '../../../src/core/bus.js';
import { scriptClock } from '../../../src/core/lua.js';
import { MessageQueue } from '../../../src/mq/message-queue.js';
import type { QueueQuotas } from '../../../src/mq/queues/queue-quotas.js';
import type { ReservationRequest } from '../../../src/mq/messages/reservation.js';
import { useSharedRedis } from '../../helpers/shared-redis.js';
import { scaled } from '../../helpers/pace.js';

// Reserve, release and delete, straight against src/ on the worker's shared Redis (no HTTP).
const shared = useSharedRedis();
let mq: MessageQueue;
const silent = { info: () => undefined, warn: () => undefined };
const queue = (name: string) => ({ projectId: 'p1', name });
/** The messages one reserve hands out. */
const reserve = async (ref: { projectId: string; name: string }, request: ReservationRequest) =>
  (await mq.reserve(ref, request)).messages;

beforeAll(() => {
  const bus = new EventBus(shared.connect('subscriber'), shared.redis);
  mq = new MessageQueue({ redis: shared.redis, keys: shared.keys, bus, log: silent, minTimeoutSeconds: 1 });
});
afterAll(() => mq?.close());

describe('reserving messages', () => {
  it('hands each message to one reserver until its timeout passes, then again with a new reservation', async () => {
    const ref = queue('orders');
    await mq.post(ref, [{ body: 'a' }, { body: 'b' }, { body: 'c' }]);
    const first = await reserve(ref, { n: 2, timeout: 30, wait: 0 });
    expect(first.map((message) => message.body)).toEqual(['a', 'b']);
    expect(first.every((message) => message.reservedCount === 1)).toBe(true);
    const second = await reserve(ref, { n: 5, timeout: 30, wait: 0 });
    expect(second.map((message) => message.body)).toEqual(['c']);
    expect(await reserve(ref, { n: 5, wait: 0 })).toEqual([]);

    scriptClock.advance(31_000);
    const again = await reserve(ref, { n: 5, timeout: 30, wait: 0 });
    expect(again.map((message) => message.body).sort()).toEqual(['a', 'b', 'c']);
    expect(again.find((message) => message.body === 'a')!.reservationId).not.toBe(first[0]!.reservationId);
    expect(again.every((message) => message.reservedCount === 2)).toBe(true);
  });

  it('a waiting reserve is woken by a post and returns it before its wait ends', async () => {
    const ref = queue('waited');
    await mq.queues.configure(ref, {}, 'upsert');
    const started = Date.now();
    const waiting = reserve(ref, { n: 1, wait: 20 });
    await mq.post(ref, [{ body: 'arrived' }]);
    const [message] = await waiting;
    expect(message!.body).toBe('arrived');
    expect(Date.now() - started).toBeLessThan(scaled(20_000));
  });
});

describe('deleting and releasing reserved messages', () => {
  it('deletes a reserved message only with its current reservation id', async () => {
    const ref = queue('deletes');
    const [id] = await mq.post(ref, [{ body: 'x' }]);
    const [reserved] = await reserve(ref, { n: 1, timeout: 30, wait: 0 });
    await expect(mq.delete(ref, [{ id: id! }])).rejects.toMatchObject({
      statusCode: 403,
      message: 'Message is reserved; its reservation_id is required',
    });
    await expect(mq.delete(ref, [{ id: id!, reservationId: 'not-the-reservation' }])).rejects.toMatchObject({
      statusCode: 403,
    });
    await mq.delete(ref, [{ id: id!, reservationId: reserved!.reservationId }]);
    await expect(mq.get(ref, id!)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('deletes a batch all or nothing: one bad target keeps every message and is named', async () => {
    const ref = queue('batch');
    const ids = await mq.post(ref, [{ body: '1' }, { body: '2' }]);
    await expect(mq.delete(ref, [{ id: ids[0]! }, { id: 'no-such-message' }])).rejects.toMatchObject({
      statusCode: 404,
      message: expect.stringContaining('no-such-message'),
    });
    expect((await mq.peek(ref, 10)).map((message) => message.id)).toEqual(ids);
  });

  it('a released message goes back to the front at once, or after its delay', async () => {
    const ref = queue('releases');
    await mq.post(ref, [{ body: 'first' }, { body: 'second' }]);
    const [first] = await reserve(ref, { n: 1, timeout: 60, wait: 0 });
    await mq.release(ref, first!.id, first!.reservationId);
    const [again] = await reserve(ref, { n: 1, timeout: 60, wait: 0 });
    expect(again!.body).toBe('first');

    await mq.release(ref, again!.id, again!.reservationId, 30);
    const [next] = await reserve(ref, { n: 1, timeout: 60, wait: 0 });
    expect(next!.body).toBe('second');
    expect(await reserve(ref, { n: 1, wait: 0 })).toEqual([]);
    scriptClock.advance(31_000);
    expect((await reserve(ref, { n: 1, wait: 0 }))[0]!.body).toBe('first');
  });

  it('refuses to release with a stale reservation once the message was reserved again', async () => {
    const ref = queue('stale');
    await mq.post(ref, [{ body: 'x' }]);
    const [old] = await reserve(ref, { n: 1, timeout: 10, wait: 0 });
    scriptClock.advance(11_000);
    await reserve(ref, { n: 1, timeout: 10, wait: 0 });
    await expect(mq.release(ref, old!.id, old!.reservationId)).rejects.toMatchObject({ statusCode: 403 });
  });
});

describe('queue quotas', () => {
  const quotas: QueueQuotas = { queues: 2, queueBytes: 10, storedBytes: 1_000_000 };

  it('a post past the queues quota is 403 and creates nothing; bodies past queue_bytes are 413', async () => {
    const project = { projectId: 'quota-project', name: 'one' };
    await mq.post(project, [{ body: 'a' }], quotas);
    await mq.post({ ...project, name: 'two' }, [{ body: 'b' }], quotas);
    await expect(mq.post({ ...project, name: 'three' }, [{ body: 'c' }], quotas)).rejects.toMatchObject({
      statusCode: 403,
      message: expect.stringMatching(/^quota queues reached: the project may have at most 2 queues/),
    });
    expect(await mq.queues.exists({ ...project, name: 'three' })).toBe(false);
    await expect(mq.post(project, [{ body: 'x'.repeat(20) }], quotas)).rejects.toMatchObject({ statusCode: 413 });
    expect((await mq.peek(project, 10)).map((message) => message.body)).toEqual(['a']);
  });
});
