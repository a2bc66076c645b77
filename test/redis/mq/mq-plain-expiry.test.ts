import { describe, expect, it } from 'vitest';
import { mqTestFile, uniqueQueue } from '../../helpers/mq.js';
import { scriptClock } from '../../../src/core/lua.js';

// Plain messages (src/mq/lua/includes/plain-layout.lua) keep no expiry entry while they are on the ready
// set: their expiry is their ready score plus the queue record's plain_expiration_ms. These tests
// read the keys to show which messages have an entry, and move the script clock past expirations
// (so the file's tests run one at a time).
const file = mqTestFile({ FERRUM_MQ_MIN_TIMEOUT: '1' });

const keyOf = (queue: string, part: string) =>
  `ferrum:{mq:${file.server.projectId}:${encodeURIComponent(queue)}}:${part}`;
const expiryEntries = async (queue: string) => file.observer.zrange(keyOf(queue, 'expiry'), 0, -1, 'WITHSCORES');
const ref = (queue: string) => ({ projectId: file.server.projectId, name: queue });

describe('plain messages', () => {
  it('plain messages get no expiry entry: a reserved one holds post time + message_expiration in its rid field', async () => {
    const queue = uniqueQueue('plain-entries');
    await file.mq.createQueue(queue, { message_expiration: 60 });
    const [a, b] = await file.mq.postBodies(queue, 'a', 'b');
    expect(await expiryEntries(queue)).toEqual([]);
    const posted = Number(await file.observer.zscore(keyOf(queue, 'ready'), a!));
    const [reserved] = await file.mq.reserve(queue);
    expect(reserved.id).toBe(a);
    expect(await file.observer.hget(keyOf(queue, 'rid'), a!)).toBe(`${reserved.reservation_id}@${posted + 60_000}`);
    // Touched: a new reservation id, the same expiry.
    const touched = await file.mq.http.post(file.mq.path(queue, `/messages/${a}/touch`), {
      reservation_id: reserved.reservation_id,
    });
    expect(touched.status).toBe(200);
    expect(await file.observer.hget(keyOf(queue, 'rid'), a!)).toBe(`${touched.body.reservation_id}@${posted + 60_000}`);
    await file.mq.reserve(queue, { delete: true });
    expect(await file.observer.hexists(keyOf(queue, 'body'), b!)).toBe(0);
    expect(await expiryEntries(queue)).toEqual([]);
    expect((await file.mq.delete(queue, a!, touched.body.reservation_id)).status).toBe(200);
  });

  it('a plain message whose reservation lapses goes back with an entry at the expiry it was posted with', async () => {
    const queue = uniqueQueue('plain-lapsed');
    await file.mq.createQueue(queue, { message_expiration: 3 });
    const [id] = await file.mq.postBodies(queue, 'lapses');
    const posted = Number(await file.observer.zscore(keyOf(queue, 'ready'), id!));
    await file.mq.reserve(queue, { timeout: 1 });
    scriptClock.advance(1100);
    expect((await file.mq.peek(queue)).map((message) => message.id)).toEqual([id]);
    expect(await expiryEntries(queue)).toEqual([id, String(posted + 3000)]);
    scriptClock.advance(2000);
    expect(await file.mq.reserve(queue)).toEqual([]);
    expect(await file.observer.hlen(keyOf(queue, 'body'))).toBe(0);
  });

  it('a plain message expires on time however it is reached: get, delete by id, peek, reserve, info', async () => {
    const queue = uniqueQueue('plain-expires');
    await file.mq.createQueue(queue, { message_expiration: 2 });
    const [kept, deleted] = await file.mq.postBodies(queue, 'kept', 'deleted');
    scriptClock.advance(1000);
    expect((await file.mq.http.get(file.mq.path(queue, `/messages/${kept}`))).body.message.body).toBe('kept');
    expect((await file.mq.delete(queue, deleted!)).status).toBe(200);
    scriptClock.advance(1100);
    // Nothing has swept the queue since: each path finds the message expired by itself.
    expect((await file.mq.http.get(file.mq.path(queue, `/messages/${kept}`))).status).toBe(404);
    expect((await file.mq.delete(queue, kept!)).status).toBe(404);
    expect(await file.mq.peek(queue)).toEqual([]);
    expect(await file.mq.reserve(queue)).toEqual([]);
    expect((await file.mq.info(queue)).size).toBe(0);
    expect(await file.observer.hlen(keyOf(queue, 'body'))).toBe(0);
  });

  it('a changed message_expiration: messages already waiting keep theirs, later posts take the new one', async () => {
    const queue = uniqueQueue('plain-change');
    await file.mq.createQueue(queue, { message_expiration: 2 });
    const [early] = await file.mq.postBodies(queue, 'early');
    expect((await file.mq.http.patch(file.mq.path(queue), { queue: { message_expiration: 60 } })).status).toBe(200);
    // The ready set still holds a plain message of the old expiration: this one gets an entry.
    const [late] = await file.mq.postBodies(queue, 'late');
    expect((await expiryEntries(queue))[0]).toBe(late);
    scriptClock.advance(2100);
    expect((await file.mq.http.get(file.mq.path(queue, `/messages/${early}`))).status).toBe(404);
    expect((await file.mq.reserve(queue, { n: 2 })).map((message) => message.id)).toEqual([late]);
    // The ready set is empty now: plain messages take the new expiration.
    await file.mq.postBodies(queue, 'next');
    expect(await file.observer.hget(keyOf(queue, 'queue'), 'plain_expiration_ms')).toBe('60000');
    scriptClock.advance(2100);
    expect((await file.mq.peek(queue)).map((message) => message.body)).toEqual(['next']);
  });

  it('messages with an expiration of their own ahead of plain ones: each expires at its own time', async () => {
    const queue = uniqueQueue('plain-mixed');
    await file.mq.createQueue(queue, { message_expiration: 2 });
    const service = file.server.running.ctx.mq;
    const [long, short] = await service.post(ref(queue), [
      { body: 'own, long', expiresIn: 60 },
      { body: 'own, short', expiresIn: 1 },
    ]);
    const [plain] = await file.mq.postBodies(queue, 'plain');
    const [delayed] = await file.mq.post(queue, [{ body: 'delayed', delay: 1 }]);
    expect((await expiryEntries(queue)).filter((_, i) => i % 2 === 0).sort()).toEqual([long, short, delayed].sort());
    scriptClock.advance(1100);
    expect((await file.mq.peek(queue)).map((message) => message.id)).toEqual([long, plain, delayed]);
    scriptClock.advance(1000);
    // The plain message expired behind a live one with its own, longer expiration.
    expect((await file.mq.peek(queue)).map((message) => message.id)).toEqual([long]);
    expect(await file.observer.hexists(keyOf(queue, 'body'), short!)).toBe(0);
  });

  it('a released plain message keeps the expiry it was posted with', async () => {
    const queue = uniqueQueue('plain-released');
    await file.mq.createQueue(queue, { message_expiration: 2 });
    await file.mq.postBodies(queue, 'released');
    const [message] = await file.mq.reserve(queue, { timeout: 30 });
    const release = await file.mq.http.post(file.mq.path(queue, `/messages/${message.id}/release`), {
      reservation_id: message.reservation_id,
    });
    expect(release.status).toBe(200);
    expect((await file.mq.peek(queue)).map((peeked) => peeked.id)).toEqual([message.id]);
    scriptClock.advance(2100);
    expect(await file.mq.peek(queue)).toEqual([]);
    expect(await expiryEntries(queue)).toEqual([]);
  });

  it('a queue written before plain messages (every message with an entry, no plain expiration) keeps working', async () => {
    const queue = uniqueQueue('plain-upgrade');
    await file.mq.createQueue(queue, { message_expiration: 2 });
    const ids = await file.mq.postBodies(queue, 'old 1', 'old 2');
    // What the previous version stored: an entry per message and no plain_expiration_ms.
    for (const id of ids) await file.observer.zadd(keyOf(queue, 'expiry'), scriptClock.now() + 2000, id);
    await file.observer.hdel(keyOf(queue, 'queue'), 'plain_expiration_ms');
    const [added] = await file.mq.postBodies(queue, 'new');
    expect((await expiryEntries(queue)).filter((_, i) => i % 2 === 0)).toContain(added);
    expect((await file.mq.reserve(queue, { n: 1 }))[0].id).toBe(ids[0]);
    scriptClock.advance(2100);
    expect(await file.mq.reserve(queue, { n: 3 })).toEqual([]);
    expect((await file.mq.info(queue)).size).toBe(0);
  });

  it('dead letter hand-over of an id already on the queue stores nothing twice', async () => {
    const queue = uniqueQueue('plain-transfer');
    const service = file.server.running.ctx.mq;
    const [id] = await file.mq.postBodies(queue, 'once');
    await service.transfer(ref(queue), [{ id: id!, body: 'twice', pushHeaders: '', reservedCount: 1 }]);
    expect((await file.mq.peek(queue)).map((message) => [message.id, message.body])).toEqual([[id, 'once']]);
  });
});
