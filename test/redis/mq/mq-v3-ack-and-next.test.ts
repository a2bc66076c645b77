import { describe, expect, it } from 'vitest';
import { useMqClient, uniqueQueue } from '../../helpers/mq.js';
import { useTestServer } from '../../helpers/test-file.js';
import { eventually } from '../../helpers/eventually.js';
import { scriptClock } from '../../../src/core/lua.js';
import { QUEUE_KEY } from '../../../src/mq/scripts.js';

// Ferrum's ack-and-next: a v3 reserve carrying `delete_reserved` deletes those messages in the
// script that reserves the next batch. Reservation timeouts of a second; the script clock moves
// past them, so the tests run one at a time.
const server = useTestServer({ FERRUM_MQ_MIN_TIMEOUT: '1' });
const mq = useMqClient(server);
const acks = (messages: any[]) =>
  messages.map((message) => ({ id: message.id, reservation_id: message.reservation_id }));

function reserve(queue: string, body: Record<string, unknown>) {
  return mq.http.post(mq.path(queue, '/reservations'), body);
}

async function queueBytes(queue: string): Promise<number> {
  const redis = server.openRedis();
  try {
    const key = server.running.ctx.mq.keys.queue({ projectId: server.projectId, name: queue })[QUEUE_KEY]!;
    return Number((await redis.hget(key, 'bytes')) ?? '0');
  } finally {
    redis.disconnect();
  }
}

describe('ack-and-next (delete_reserved on a v3 reserve)', () => {
  it('deletes the batch just processed and reserves the next one in the same request', async () => {
    const queue = uniqueQueue('ack-next');
    const ids = await mq.postBodies(queue, 'a', 'b', 'c', 'd', 'e');
    const first = await mq.reserve(queue, { n: 3 });
    expect(first.map((m) => m.id)).toEqual(ids.slice(0, 3));

    const next = await reserve(queue, { n: 3, delete_reserved: acks(first) });
    expect(next.status).toBe(200);
    expect(next.body.messages.map((m: any) => m.body)).toEqual(['d', 'e']);
    expect(next.body).toMatchObject({ deleted: 3, not_deleted: [] });
    for (const id of ids.slice(0, 3)) expect((await mq.http.get(mq.path(queue, `/messages/${id}`))).status).toBe(404);
    expect((await mq.info(queue)).size).toBe(2);

    const last = await reserve(queue, { n: 3, delete_reserved: acks(next.body.messages) });
    expect(last.body).toEqual({ messages: [], deleted: 2, not_deleted: [] });
    expect((await mq.info(queue)).size).toBe(0);
    expect(await queueBytes(queue)).toBe(0);
  });

  it('old clients are unaffected: without delete_reserved the answer is the messages alone', async () => {
    const queue = uniqueQueue('ack-old');
    await mq.postBodies(queue, 'a');
    const plain = await reserve(queue, { n: 1 });
    expect(Object.keys(plain.body)).toEqual(['messages']);
    // An empty list is allowed (a consumer's first call) and reports nothing deleted.
    const empty = await reserve(queue, { n: 1, delete_reserved: [] });
    expect(empty.body).toEqual({ messages: [], deleted: 0, not_deleted: [] });
  });

  it('refuses bad entries with a 4xx naming them, and then neither deletes nor reserves anything', async () => {
    const queue = uniqueQueue('ack-bad');
    await mq.postBodies(queue, 'a', 'b');
    const [held] = await mq.reserve(queue, { n: 1 });
    const good = { id: held.id, reservation_id: held.reservation_id };
    const cases: [unknown, number, string][] = [
      ['nope', 400, 'delete_reserved'],
      [[good, 'x'], 400, 'delete_reserved[1]'],
      [[good, { id: held.id }], 406, 'delete_reserved[1].reservation_id'],
      [[{ reservation_id: 'r' }], 406, 'delete_reserved[0].id'],
      [[{ id: 7, reservation_id: 'r' }], 400, 'delete_reserved[0].id'],
      [[{ id: held.id, reservation_id: '' }], 400, 'delete_reserved[0].reservation_id'],
      [[good, good], 400, 'delete_reserved[1].id repeats delete_reserved[0].id'],
      [Array.from({ length: 101 }, (_, i) => ({ id: String(i), reservation_id: 'r' })), 400, 'delete_reserved'],
    ];
    for (const [deleteReserved, status, named] of cases) {
      const refused = await reserve(queue, { n: 1, delete_reserved: deleteReserved });
      expect(refused.status, JSON.stringify(deleteReserved).slice(0, 80)).toBe(status);
      expect(refused.body.msg).toContain(named);
    }
    // The held message is still reserved under its reservation, the other one still available.
    expect((await mq.info(queue)).size).toBe(2);
    expect((await mq.delete(queue, held.id, held.reservation_id)).status).toBe(200);
    expect((await mq.reserve(queue, { n: 2 })).map((m) => m.body)).toEqual(['b']);
  });

  it('reports a lapsed reservation (the message goes back on the queue) and deletes the others', async () => {
    const queue = uniqueQueue('ack-lapsed');
    await mq.postBodies(queue, 'slow');
    const [slow] = await mq.reserve(queue, { n: 1, timeout: 1 });
    await mq.postBodies(queue, 'fast');
    const [fast] = await mq.reserve(queue, { n: 1, timeout: 30 });
    scriptClock.advance(1100);

    const next = await reserve(queue, { n: 1, timeout: 30, delete_reserved: acks([slow, fast]) });
    expect(next.status).toBe(200);
    expect(next.body.deleted).toBe(1);
    expect(next.body.not_deleted).toEqual([
      { id: slow.id, reservation_id: slow.reservation_id, msg: 'Reservation timed out' },
    ]);
    // Back at the front, it is what this same request reserved next.
    expect(next.body.messages).toMatchObject([{ id: slow.id, body: 'slow', reserved_count: 2 }]);
    expect((await mq.http.get(mq.path(queue, `/messages/${fast.id}`))).status).toBe(404);
  });

  it('never deletes a message another consumer now holds, nor one that is gone', async () => {
    const queue = uniqueQueue('ack-stolen');
    await mq.postBodies(queue, 'contested');
    const [mine] = await mq.reserve(queue, { n: 1, timeout: 1 });
    scriptClock.advance(1100);
    const [theirs] = await mq.reserve(queue, { n: 1, timeout: 30 });
    expect(theirs.id).toBe(mine.id);

    const late = await reserve(queue, {
      n: 1,
      delete_reserved: [...acks([mine]), { id: '12345', reservation_id: 'r' }],
    });
    expect(late.body).toEqual({
      messages: [],
      deleted: 0,
      not_deleted: [
        { id: mine.id, reservation_id: mine.reservation_id, msg: 'Reservation timed out' },
        { id: '12345', reservation_id: 'r', msg: 'Message not found' },
      ],
    });
    // The other consumer's reservation still holds.
    expect((await mq.reserve(queue)).length).toBe(0);
    expect((await mq.delete(queue, theirs.id, theirs.reservation_id)).status).toBe(200);
  });

  it("finds no message named after the reservation hashes' own field (~), which reads as a reservation id", async () => {
    const queue = uniqueQueue('ack-marker');
    await mq.postBodies(queue, 'a', 'b');
    const held = await mq.reserve(queue, { n: 1 });
    const next = await reserve(queue, { n: 1, delete_reserved: [{ id: '~', reservation_id: 'r' }, ...acks(held)] });
    expect(next.body).toMatchObject({
      messages: [{ body: 'b' }],
      deleted: 1,
      not_deleted: [{ id: '~', reservation_id: 'r', msg: 'Message not found' }],
    });
  });

  it('with wait, deletes at once and then long-polls for the next batch', async () => {
    const queue = uniqueQueue('ack-wait');
    await mq.postBodies(queue, 'first');
    const first = await mq.reserve(queue, { n: 1 });
    const waiting = reserve(queue, { n: 1, wait: 10, delete_reserved: acks(first) });
    // The delete happened before the wait: the queue is empty while the request still waits.
    await eventually(async () => expect((await mq.info(queue)).size).toBe(0));
    await mq.postBodies(queue, 'second');
    const next = await waiting;
    expect(next.body).toMatchObject({ messages: [{ body: 'second' }], deleted: 1, not_deleted: [] });
  });
});
