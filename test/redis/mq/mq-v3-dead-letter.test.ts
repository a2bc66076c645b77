import { describe, expect, it } from 'vitest';
import { useMqClient, uniqueQueue } from '../../helpers/mq.js';
import { useTestServer } from '../../helpers/test-file.js';
import { scriptClock } from '../../../src/core/lua.js';

const server = useTestServer({ FERRUM_MQ_MIN_TIMEOUT: '1' });
const mq = useMqClient(server);
async function withDeadLetter(maxReservations: number, sourceSettings: Record<string, unknown> = {}) {
  const source = uniqueQueue('source');
  const deadLetter = uniqueQueue('dead');
  const response = await mq.createQueue(source, {
    ...sourceSettings,
    dead_letter: { queue_name: deadLetter, max_reservations: maxReservations },
  });
  expect(response.status).toBe(200);
  return { source, deadLetter };
}

async function reserveAndRelease(queue: string): Promise<any> {
  const [message] = await mq.reserve(queue);
  expect(message).toBeDefined();
  const released = await mq.http.post(mq.path(queue, `/messages/${message.id}/release`), {
    reservation_id: message.reservation_id,
  });
  expect(released.status).toBe(200);
  return message;
}

describe('dead letter queues', () => {
  it('max_reservations 1: reserved once, the next reserve moves it (id, body and reserved_count kept)', async () => {
    const { source, deadLetter } = await withDeadLetter(1);
    const [id] = await mq.post(source, [{ body: 'only once', push_headers: { Trace: 't1' } }]);
    const first = await reserveAndRelease(source);
    expect(first).toMatchObject({ id, reserved_count: 1 });
    expect(await mq.reserve(source)).toEqual([]);
    expect((await mq.info(source)).size).toBe(0);
    expect((await mq.http.get(mq.path(source, `/messages/${id}`))).status).toBe(404);
    const moved = await mq.http.get(mq.path(deadLetter, `/messages/${id}`));
    expect(moved.body.message).toEqual({ id, body: 'only once', reserved_count: 1, push_headers: { Trace: 't1' } });
    expect(await mq.info(deadLetter)).toMatchObject({ size: 1, total_messages: 1 });
    const [reservedThere] = await mq.reserve(deadLetter);
    expect(reservedThere).toMatchObject({ id, body: 'only once', reserved_count: 2 });
  });

  it('max_reservations 1 with a reservation that timed out instead of a release', async () => {
    const { source, deadLetter } = await withDeadLetter(1);
    const [id] = await mq.postBodies(source, 'timed out');
    await mq.reserve(source, { timeout: 1 });
    scriptClock.advance(1100);
    expect(await mq.reserve(source)).toEqual([]);
    expect((await mq.peek(deadLetter)).map((message) => message.id)).toEqual([id]);
  });

  it('moves when reserved_count exceeds max_reservations, not before', async () => {
    const { source, deadLetter } = await withDeadLetter(3);
    const [id] = await mq.postBodies(source, 'thrice');
    for (let count = 1; count <= 3; count++) expect((await reserveAndRelease(source)).reserved_count).toBe(count);
    expect(await mq.peek(deadLetter)).toEqual([]);
    expect(await mq.reserve(source)).toEqual([]);
    expect(await mq.peek(deadLetter)).toEqual([{ id, body: 'thrice', reserved_count: 3 }]);
  });

  it('a reserve of several messages returns the others while moving one', async () => {
    const { source, deadLetter } = await withDeadLetter(1);
    const [first] = await mq.postBodies(source, 'first');
    await reserveAndRelease(source);
    await mq.postBodies(source, 'second', 'third');
    const reserved = await mq.reserve(source, { n: 3 });
    expect(reserved.map((message) => message.body)).toEqual(['second', 'third']);
    expect((await mq.peek(deadLetter)).map((message) => message.id)).toEqual([first]);
  });

  it('adding the setting moves nothing; peek and get do not move or count; the next reserve moves old messages', async () => {
    const source = uniqueQueue('late-setting');
    const deadLetter = uniqueQueue('late-dead');
    const [id] = await mq.postBodies(source, 'veteran');
    for (let i = 0; i < 3; i++) await reserveAndRelease(source);
    await mq.createQueue(source, { dead_letter: { queue_name: deadLetter, max_reservations: 2 } });
    expect((await mq.info(source)).size).toBe(1);
    expect((await mq.peek(source))[0]).toMatchObject({ id, reserved_count: 3 });
    expect((await mq.http.get(mq.path(source, `/messages/${id}`))).body.message.reserved_count).toBe(3);
    expect(await mq.info(deadLetter)).toMatchObject({ size: 0 });
    expect(await mq.reserve(source)).toEqual([]);
    expect((await mq.peek(deadLetter))[0]).toMatchObject({ id, reserved_count: 3 });
  });

  it('touch counts as a reservation but only reserve moves the message', async () => {
    const { source, deadLetter } = await withDeadLetter(2);
    const [id] = await mq.postBodies(source, 'touched');
    const [message] = await mq.reserve(source, { timeout: 30 });
    let reservation = message.reservation_id;
    for (let i = 0; i < 2; i++) {
      const touched = await mq.http.post(mq.path(source, `/messages/${id}/touch`), { reservation_id: reservation });
      expect(touched.status).toBe(200);
      reservation = touched.body.reservation_id;
    }
    expect((await mq.http.get(mq.path(source, `/messages/${id}`))).body.message.reserved_count).toBe(3);
    expect((await mq.info(deadLetter)).size).toBe(0);
    await mq.http.post(mq.path(source, `/messages/${id}/release`), { reservation_id: reservation });
    expect(await mq.reserve(source)).toEqual([]);
    expect((await mq.peek(deadLetter))[0]).toMatchObject({ id, reserved_count: 3 });
  });

  it('the moved message expires by the dead letter queue expiration, counted from the move', async () => {
    const { source, deadLetter } = await withDeadLetter(1, { message_expiration: 2 });
    await mq.createQueue(deadLetter, { message_expiration: 1 });
    const [id] = await mq.postBodies(source, 'short');
    await reserveAndRelease(source);
    scriptClock.advance(600);
    expect(await mq.reserve(source)).toEqual([]);
    expect((await mq.http.get(mq.path(deadLetter, `/messages/${id}`))).status).toBe(200);
    scriptClock.advance(1100);
    expect((await mq.http.get(mq.path(deadLetter, `/messages/${id}`))).status).toBe(404);
  });

  it('a moved message outlives the source expiration when the dead letter queue keeps it longer', async () => {
    const { source, deadLetter } = await withDeadLetter(1, { message_expiration: 1 });
    const [id] = await mq.postBodies(source, 'kept');
    await reserveAndRelease(source);
    expect(await mq.reserve(source)).toEqual([]);
    scriptClock.advance(1200);
    expect((await mq.http.get(mq.path(deadLetter, `/messages/${id}`))).status).toBe(200);
  });

  it('removing the setting stops the moves; nothing already moved comes back', async () => {
    const { source, deadLetter } = await withDeadLetter(1);
    const [moved] = await mq.postBodies(source, 'moved');
    await reserveAndRelease(source);
    expect(await mq.reserve(source)).toEqual([]);
    const [kept] = await mq.postBodies(source, 'kept');
    await reserveAndRelease(source);
    const removed = await mq.updateQueue(source, { dead_letter: { queue_name: '' } });
    expect(removed.body.queue.dead_letter).toBeUndefined();
    const [again] = await mq.reserve(source);
    expect(again).toMatchObject({ id: kept, reserved_count: 2 });
    expect((await mq.peek(deadLetter)).map((message) => message.id)).toEqual([moved]);
  });

  it('a deleted dead letter queue is created again by the next move', async () => {
    const { source, deadLetter } = await withDeadLetter(1);
    await mq.http.delete(mq.path(deadLetter));
    const [id] = await mq.postBodies(source, 'orphan');
    await reserveAndRelease(source);
    expect(await mq.reserve(source)).toEqual([]);
    expect((await mq.peek(deadLetter)).map((message) => message.id)).toEqual([id]);
  });

  it('reserve with delete true still moves messages over the threshold', async () => {
    const { source, deadLetter } = await withDeadLetter(1);
    const [id] = await mq.postBodies(source, 'x');
    await reserveAndRelease(source);
    expect(await mq.reserve(source, { delete: true })).toEqual([]);
    expect((await mq.peek(deadLetter)).map((message) => message.id)).toEqual([id]);
  });

  it('a hand-over repeated (after a crash between its steps) keeps one copy of each message', async () => {
    const deadLetter = uniqueQueue('dead');
    const ref = { projectId: server.projectId, name: deadLetter };
    const moved = { id: '7000000000000000001', body: 'moved once', reservedCount: 3, pushHeaders: '' };
    const store = server.running.ctx.mq;
    await store.transfer(ref, [moved]);
    await store.transfer(ref, [moved, { ...moved, id: '7000000000000000002', body: 'new in the repeat' }]);
    const peeked = await mq.peek(deadLetter, 10);
    expect(peeked.map((message) => [message.id, message.body])).toEqual([
      [moved.id, 'moved once'],
      ['7000000000000000002', 'new in the repeat'],
    ]);
    expect(await mq.info(deadLetter)).toMatchObject({ size: 2, total_messages: 2 });
  });
});
