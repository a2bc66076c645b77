import { describe, expect, it } from 'vitest';
import { useMqClient, rawRequest, uniqueQueue } from '../../helpers/mq.js';
import { useTestServer } from '../../helpers/test-file.js';
import { scriptClock } from '../../../src/core/lua.js';
import { QUEUE_KEY_PARTS } from '../../../src/mq/scripts.js';

// Reservation timeouts and delays of a second; the script clock (scriptClock) moves past them, so the
// suites that move it run their tests one at a time.
const server = useTestServer({ FERRUM_MQ_MIN_TIMEOUT: '1' });
const mq = useMqClient(server);
const bodies = (messages: any[]) => messages.map((message) => message.body);

describe('message state table', () => {
  it('post with delay 0: available at once, id returned', async () => {
    const queue = uniqueQueue('available');
    const [id] = await mq.postBodies(queue, 'hello');
    expect(id).toMatch(/^\d+$/);
    const [message] = await mq.reserve(queue);
    expect(message).toMatchObject({ id, body: 'hello', reserved_count: 1 });
  });

  it('post with delay > 0: delayed, available after the delay', async () => {
    const queue = uniqueQueue('delayed');
    const [id] = await mq.post(queue, [{ body: 'later', delay: 1 }]);
    expect(await mq.reserve(queue)).toEqual([]);
    expect(await mq.peek(queue)).toEqual([]);
    expect((await mq.info(queue)).size).toBe(1);
    scriptClock.advance(1100);
    expect((await mq.reserve(queue)).map((message) => message.id)).toEqual([id]);
  });

  it('reserve: reserved_count incremented, reservation_id issued, nobody else gets it while reserved', async () => {
    const queue = uniqueQueue('reserve');
    const [id] = await mq.postBodies(queue, 'one');
    const [first] = await mq.reserve(queue, { timeout: 30 });
    expect(first.reserved_count).toBe(1);
    expect(typeof first.reservation_id).toBe('string');
    expect(first.reservation_id.length).toBeGreaterThan(10);
    expect(await mq.reserve(queue)).toEqual([]);
    expect((await mq.info(queue)).size).toBe(1);
    expect((await mq.http.get(mq.path(queue, `/messages/${id}`))).body.message.reserved_count).toBe(1);
  });

  it('reserve with delete true: the message is gone', async () => {
    const queue = uniqueQueue('reserve-delete');
    const [id] = await mq.postBodies(queue, 'once');
    const [message] = await mq.reserve(queue, { delete: true });
    expect(message).toMatchObject({ id, body: 'once', reserved_count: 1 });
    expect((await mq.http.get(mq.path(queue, `/messages/${id}`))).status).toBe(404);
    expect((await mq.info(queue)).size).toBe(0);
    expect(await mq.reserve(queue)).toEqual([]);
  });

  it('delete with a valid reservation_id: Deleted', async () => {
    const queue = uniqueQueue('delete-valid');
    await mq.postBodies(queue, 'x');
    const [message] = await mq.reserve(queue);
    const response = await mq.delete(queue, message.id, message.reservation_id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ msg: 'Deleted' });
    expect((await mq.info(queue)).size).toBe(0);
  });

  it('delete after the reservation timed out: 403 Reservation timed out, message back on the queue', async () => {
    const queue = uniqueQueue('delete-stale');
    await mq.postBodies(queue, 'x');
    const [message] = await mq.reserve(queue, { timeout: 1 });
    scriptClock.advance(1100);
    const response = await mq.delete(queue, message.id, message.reservation_id);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ msg: 'Reservation timed out' });
    const [again] = await mq.reserve(queue);
    expect(again).toMatchObject({ id: message.id, reserved_count: 2 });
    expect(again.reservation_id).not.toBe(message.reservation_id);
    expect((await mq.delete(queue, message.id, message.reservation_id)).status).toBe(403);
    expect((await mq.delete(queue, again.id, again.reservation_id)).status).toBe(200);
  });

  it('reservation timeout elapses: the message returns to the front of the queue', async () => {
    const queue = uniqueQueue('timeout-front');
    await mq.postBodies(queue, 'A', 'B');
    const [a] = await mq.reserve(queue, { timeout: 30 });
    const [b] = await mq.reserve(queue, { timeout: 1 });
    expect(bodies([a, b])).toEqual(['A', 'B']);
    expect(
      (await mq.http.post(mq.path(queue, `/messages/${a.id}/release`), { reservation_id: a.reservation_id })).status,
    ).toBe(200);
    scriptClock.advance(1100);
    // B timed out after A was released: B is now in front of A although it was posted later.
    expect(bodies(await mq.peek(queue))).toEqual(['B', 'A']);
    expect(bodies(await mq.reserve(queue, { n: 2 }))).toEqual(['B', 'A']);
  });

  it('release: the message goes to the front of the queue', async () => {
    const queue = uniqueQueue('release-front');
    await mq.postBodies(queue, 'A', 'B', 'C');
    const [a, b] = await mq.reserve(queue, { n: 2 });
    for (const message of [a, b]) {
      const response = await mq.http.post(mq.path(queue, `/messages/${message.id}/release`), {
        reservation_id: message.reservation_id,
      });
      expect(response.body).toEqual({ msg: 'Released' });
    }
    expect(bodies(await mq.reserve(queue, { n: 3 }))).toEqual(['B', 'A', 'C']);
  });

  it('release with a delay: delayed, then at the front of the queue', async () => {
    const queue = uniqueQueue('release-delay');
    await mq.postBodies(queue, 'A', 'B');
    const [a, b] = await mq.reserve(queue, { n: 2 });
    await mq.http.post(mq.path(queue, `/messages/${a.id}/release`), { reservation_id: a.reservation_id });
    await mq.http.post(mq.path(queue, `/messages/${b.id}/release`), { reservation_id: b.reservation_id, delay: 1 });
    expect(bodies(await mq.peek(queue))).toEqual(['A']);
    expect((await mq.info(queue)).size).toBe(2);
    scriptClock.advance(1100);
    expect(bodies(await mq.peek(queue))).toEqual(['B', 'A']);
  });

  it('release needs a live reservation', async () => {
    const queue = uniqueQueue('release-stale');
    await mq.postBodies(queue, 'A');
    const [a] = await mq.reserve(queue, { timeout: 1 });
    const wrong = await mq.http.post(mq.path(queue, `/messages/${a.id}/release`), {
      reservation_id: 'not-a-reservation',
    });
    expect(wrong.status).toBe(403);
    scriptClock.advance(1100);
    const late = await mq.http.post(mq.path(queue, `/messages/${a.id}/release`), { reservation_id: a.reservation_id });
    expect(late.status).toBe(403);
    expect(late.body.msg).toBe('Reservation timed out');
  });

  it('touch: new reservation_id, reserved_count modified, the reservation is extended', async () => {
    const queue = uniqueQueue('touch');
    const [id] = await mq.postBodies(queue, 'A');
    const [a] = await mq.reserve(queue, { timeout: 1 });
    const touched = await mq.http.post(mq.path(queue, `/messages/${id}/touch`), {
      reservation_id: a.reservation_id,
      timeout: 3,
    });
    expect(touched.status).toBe(200);
    expect(touched.body.msg).toBe('Touched');
    expect(touched.body.reservation_id).not.toBe(a.reservation_id);
    expect((await mq.http.get(mq.path(queue, `/messages/${id}`))).body.message.reserved_count).toBe(2);
    scriptClock.advance(1300);
    // Still reserved under the new id; the old one is no longer valid.
    expect(await mq.reserve(queue)).toEqual([]);
    expect((await mq.delete(queue, id!, a.reservation_id)).status).toBe(403);
    expect((await mq.delete(queue, id!, touched.body.reservation_id)).status).toBe(200);
  });

  it('touch without a timeout uses the queue message_timeout', async () => {
    const queue = uniqueQueue('touch-default');
    await mq.createQueue(queue, { message_timeout: 1 });
    const [id] = await mq.postBodies(queue, 'A');
    const [a] = await mq.reserve(queue, { timeout: 30 });
    const touched = await mq.http.post(mq.path(queue, `/messages/${id}/touch`), { reservation_id: a.reservation_id });
    scriptClock.advance(1100);
    expect((await mq.delete(queue, id!, touched.body.reservation_id)).status).toBe(403);
  });

  it('touch of a timed-out reservation: 403', async () => {
    const queue = uniqueQueue('touch-stale');
    const [id] = await mq.postBodies(queue, 'A');
    const [a] = await mq.reserve(queue, { timeout: 1 });
    scriptClock.advance(1100);
    const response = await mq.http.post(mq.path(queue, `/messages/${id}/touch`), { reservation_id: a.reservation_id });
    expect(response.status).toBe(403);
    expect(response.body.msg).toBe('Reservation timed out');
  });

  it('delete without a reservation: allowed when not reserved, refused when reserved', async () => {
    const queue = uniqueQueue('delete-plain');
    const [a, b] = await mq.postBodies(queue, 'A', 'B');
    expect((await mq.delete(queue, a!)).body).toEqual({ msg: 'Deleted' });
    const [reserved] = await mq.reserve(queue);
    expect(reserved.id).toBe(b);
    const refused = await mq.delete(queue, b!);
    expect(refused.status).toBe(403);
    expect(refused.body.msg).toMatch(/reservation_id/);
    const stale = await mq.delete(queue, b!, 'some-other-reservation');
    expect(stale.status).toBe(403);
    expect((await mq.delete(queue, b!, reserved.reservation_id)).status).toBe(200);
  });

  it('delete without a reservation after the reservation lapsed', async () => {
    const queue = uniqueQueue('delete-lapsed');
    const [a] = await mq.postBodies(queue, 'A');
    await mq.reserve(queue, { timeout: 1 });
    scriptClock.advance(1100);
    expect((await mq.delete(queue, a!)).status).toBe(200);
  });

  it('clear: every message removed, available, delayed and reserved', async () => {
    const queue = uniqueQueue('clear');
    await mq.postBodies(queue, 'A', 'B');
    await mq.post(queue, [{ body: 'C', delay: 60 }]);
    await mq.reserve(queue);
    expect((await mq.info(queue)).size).toBe(3);
    const response = await mq.http.delete(mq.path(queue, '/messages'), {});
    expect(response.body).toEqual({ msg: 'Cleared' });
    const info = await mq.info(queue);
    expect(info.size).toBe(0);
    expect(info.total_messages).toBe(3);
    expect(await mq.reserve(queue)).toEqual([]);
  });

  it('messages expire after the queue message_expiration', async () => {
    const queue = uniqueQueue('expire');
    await mq.createQueue(queue, { message_expiration: 1 });
    const [id] = await mq.postBodies(queue, 'short-lived');
    await mq.post(queue, [{ body: 'delayed-past-expiry', delay: 2 }]);
    scriptClock.advance(1100);
    expect((await mq.http.get(mq.path(queue, `/messages/${id}`))).status).toBe(404);
    expect(await mq.reserve(queue)).toEqual([]);
    expect((await mq.info(queue)).size).toBe(0);
  });

  it('a reserve after more expired messages than one maintenance pass drops still reserves none of them', async () => {
    const queue = uniqueQueue('expire-many');
    await mq.createQueue(queue, { message_expiration: 1 });
    // One pass drops 1,000 (BATCH in src/mq/lua/includes/queue-keys.lua): 100 expired ones are left on the ready set's front.
    for (let batch = 0; batch < 11; batch++) {
      await mq.post(
        queue,
        Array.from({ length: 100 }, (_, i) => ({ body: `old ${batch * 100 + i}` })),
      );
    }
    scriptClock.advance(1100);
    const [fresh] = await mq.postBodies(queue, 'fresh');
    const reserved = await mq.reserve(queue, { n: 100 });
    expect(reserved.map((message) => [message.id, message.body])).toEqual([[fresh, 'fresh']]);
    expect((await mq.info(queue)).size).toBe(1);
  });

  it('a batch delete of reserved messages that expired under their reservation: 404 naming the first', async () => {
    const queue = uniqueQueue('expire-reserved');
    await mq.createQueue(queue, { message_expiration: 1 });
    const ids = await mq.postBodies(queue, 'a', 'b');
    const reserved = await mq.reserve(queue, { n: 2, timeout: 30 });
    // No other script runs in between: the delete itself finds them expired.
    scriptClock.advance(1100);
    const response = await mq.http.delete(mq.path(queue, '/messages'), {
      ids: reserved.map((message) => ({ id: message.id, reservation_id: message.reservation_id })),
    });
    expect(response.status).toBe(404);
    expect(response.body.msg).toBe(`Message not found: ${ids[0]}`);
    expect((await mq.info(queue)).size).toBe(0);
  });

  it('reserve without timeout uses the queue message_timeout', async () => {
    const queue = uniqueQueue('queue-timeout');
    await mq.createQueue(queue, { message_timeout: 1 });
    await mq.postBodies(queue, 'A');
    const [a] = await mq.reserve(queue);
    expect(await mq.reserve(queue)).toEqual([]);
    scriptClock.advance(1100);
    const [again] = await mq.reserve(queue);
    expect(again).toMatchObject({ id: a.id, reserved_count: 2 });
  });
});

describe('messages', () => {
  it('post: a batch, ids in request order, 201 and the message text', async () => {
    const queue = uniqueQueue('batch');
    const response = await mq.http.post(mq.path(queue, '/messages'), {
      messages: [{ body: '1' }, { body: '2' }, { body: '3' }],
    });
    expect(response.status).toBe(201);
    expect(response.body.msg).toBe('Messages put on queue.');
    const ids: string[] = response.body.ids;
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect([...ids].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : 1))).toEqual(ids);
    const reserved = await mq.reserve(queue, { n: 3 });
    expect(reserved.map((message) => message.id)).toEqual(ids);
    expect(bodies(reserved)).toEqual(['1', '2', '3']);
  });

  it('post ignores timeout and expiration sent with a message', async () => {
    const queue = uniqueQueue('ignore-fields');
    const response = await mq.http.post(mq.path(queue, '/messages'), {
      messages: [{ body: 'x', timeout: 5, expires_in: 5 }],
    });
    expect(response.status).toBe(201);
  });

  it('post to a missing queue creates it and counts total_messages', async () => {
    const queue = uniqueQueue('created-by-post');
    expect((await mq.http.get(mq.path(queue))).status).toBe(404);
    await mq.postBodies(queue, 'a', 'b');
    const info = await mq.info(queue);
    expect(info).toMatchObject({
      name: queue,
      size: 2,
      total_messages: 2,
      type: 'pull',
      message_timeout: 60,
      message_expiration: 604800,
    });
    const [message] = await mq.reserve(queue);
    await mq.delete(queue, message.id, message.reservation_id);
    expect(await mq.info(queue)).toMatchObject({ size: 1, total_messages: 2 });
  });

  it('every other operation on a missing queue is 404 Queue not found', async () => {
    const queue = uniqueQueue('missing');
    const id = '912130763599634432';
    const attempts = [
      mq.http.post(mq.path(queue, '/reservations'), {}),
      mq.http.get(mq.path(queue, '/messages')),
      mq.http.get(mq.path(queue, `/messages/${id}`)),
      mq.http.delete(mq.path(queue, `/messages/${id}`), {}),
      mq.http.delete(mq.path(queue, '/messages'), { ids: [{ id }] }),
      mq.http.delete(mq.path(queue, '/messages'), {}),
      mq.http.post(mq.path(queue, `/messages/${id}/touch`), { reservation_id: 'r' }),
      mq.http.post(mq.path(queue, `/messages/${id}/release`), { reservation_id: 'r' }),
      mq.http.get(mq.path(queue)),
      mq.http.patch(mq.path(queue), { queue: { message_timeout: 40 } }),
      mq.http.delete(mq.path(queue)),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ msg: 'Queue not found' });
    }
    expect((await mq.http.get(mq.path(queue))).status).toBe(404);
  });

  it('reserve: n defaults to 1, fewer when fewer are there, an empty list when none', async () => {
    const queue = uniqueQueue('reserve-n');
    await mq.postBodies(queue, 'a', 'b', 'c');
    expect(await mq.reserve(queue)).toHaveLength(1);
    expect(await mq.reserve(queue, { n: 10 })).toHaveLength(2);
    const empty = await mq.http.post(mq.path(queue, '/reservations'), { n: 5 });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ messages: [] });
  });

  it('reserve with no body at all works (defaults)', async () => {
    const queue = uniqueQueue('reserve-empty-body');
    await mq.postBodies(queue, 'a');
    const response = await mq.http.request('POST', mq.path(queue, '/reservations'));
    expect(response.status).toBe(200);
    expect(response.body.messages).toHaveLength(1);
  });

  it('get by id: id, body, reserved_count; informational only', async () => {
    const queue = uniqueQueue('get');
    const [id] = await mq.postBodies(queue, 'payload');
    const response = await mq.http.get(mq.path(queue, `/messages/${id}`));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: { id, body: 'payload', reserved_count: 0 } });
    expect(await mq.reserve(queue)).toHaveLength(1);
    const unknown = await mq.http.get(mq.path(queue, '/messages/123'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.msg).toBe('Message not found');
    expect((await mq.http.get(mq.path(queue, '/messages/not-a-number'))).status).toBe(404);
  });

  it('peek: n messages from the front, nothing reserved', async () => {
    const queue = uniqueQueue('peek');
    await mq.postBodies(queue, 'a', 'b', 'c');
    const one = await mq.http.get(mq.path(queue, '/messages'));
    expect(one.body.messages).toHaveLength(1);
    expect(one.body.messages[0]).toMatchObject({ body: 'a', reserved_count: 0 });
    expect(one.body.messages[0].reservation_id).toBeUndefined();
    expect(bodies(await mq.peek(queue, 2))).toEqual(['a', 'b']);
    expect(await mq.reserve(queue, { n: 3 })).toHaveLength(3);
    expect(await mq.peek(queue)).toEqual([]);
  });

  it('batch delete: with and without reservations', async () => {
    const queue = uniqueQueue('batch-delete');
    const ids = await mq.postBodies(queue, 'a', 'b', 'c', 'd');
    const reserved = await mq.reserve(queue, { n: 2 });
    const response = await mq.http.delete(mq.path(queue, '/messages'), {
      ids: [...reserved.map((message) => ({ id: message.id, reservation_id: message.reservation_id })), { id: ids[2] }],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ msg: 'Deleted' });
    expect(bodies(await mq.peek(queue))).toEqual(['d']);
  });

  it('batch delete is all or nothing and names the message it refused', async () => {
    const queue = uniqueQueue('batch-refused');
    const [a, b] = await mq.postBodies(queue, 'a', 'b');
    const [reservedA] = await mq.reserve(queue);
    const stale = await mq.http.delete(mq.path(queue, '/messages'), {
      ids: [{ id: b }, { id: a, reservation_id: 'wrong' }],
    });
    expect(stale.status).toBe(403);
    expect(stale.body.msg).toBe(`Reservation timed out: ${a}`);
    const missing = await mq.http.delete(mq.path(queue, '/messages'), { ids: [{ id: b }, { id: '42' }] });
    expect(missing.status).toBe(404);
    expect(missing.body.msg).toBe('Message not found: 42');
    expect((await mq.info(queue)).size).toBe(2);
    expect((await mq.delete(queue, a!, reservedA.reservation_id)).status).toBe(200);
  });

  it('delete of an unknown message: 404 Message not found', async () => {
    const queue = uniqueQueue('delete-unknown');
    await mq.postBodies(queue, 'a');
    const response = await mq.delete(queue, '5');
    expect(response.status).toBe(404);
    expect(response.body.msg).toBe('Message not found');
  });

  it('touch and release require reservation_id (406)', async () => {
    const queue = uniqueQueue('touch-required');
    const [id] = await mq.postBodies(queue, 'a');
    for (const action of ['touch', 'release']) {
      const response = await mq.http.post(mq.path(queue, `/messages/${id}/${action}`), {});
      expect(response.status).toBe(406);
      expect(response.body.msg).toBe('reservation_id is required');
    }
  });

  it('push_headers are kept with the message', async () => {
    const queue = uniqueQueue('push-headers');
    const [id] = await mq.post(queue, [{ body: 'x', push_headers: { 'X-Custom': 'yes', Other: 'value' } }]);
    const response = await mq.http.get(mq.path(queue, `/messages/${id}`));
    expect(response.body.message.push_headers).toEqual({ 'X-Custom': 'yes', Other: 'value' });
    const [reserved] = await mq.reserve(queue);
    expect(reserved.push_headers).toEqual({ 'X-Custom': 'yes', Other: 'value' });
  });

  it('bodies keep every character', async () => {
    const queue = uniqueQueue('unicode');
    const body = 'héllo ☃ "quoted" \\ \n {"json": [1, 2]} \u0001';
    await mq.postBodies(queue, body);
    expect((await mq.reserve(queue))[0].body).toBe(body);
  });

  it('a reserve answers byte for byte what JSON.stringify writes of its messages (escapes, unicode, push headers)', async () => {
    const queue = uniqueQueue('reserve-bytes');
    const controls = Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).join('');
    const body = `${controls} "quoted" \\ back\\slash / \u007f héllo ☃ 😀 \u2028 {"json": [1, 2]}`;
    const headers = { 'X-Quote': 'say "hi" \\ é', '2': 'numeric name', 'X-Slash': 'a/b ☃' };
    const slashes = 'a/b \\/ c\\\\/ \\u007f';
    const ids = await mq.post(queue, [{ body, push_headers: headers }, { body: '' }, { body: slashes }]);
    const response = await mq.http.post(mq.path(queue, '/reservations'), { n: 3 });
    expect(response.status).toBe(200);
    const rids = (JSON.parse(response.text).messages as Array<{ reservation_id: string }>).map((m) => m.reservation_id);
    const expected = {
      messages: [
        { id: ids[0], body, reserved_count: 1, reservation_id: rids[0], push_headers: headers },
        { id: ids[1], body: '', reserved_count: 1, reservation_id: rids[1] },
        { id: ids[2], body: slashes, reserved_count: 1, reservation_id: rids[2] },
      ],
    };
    expect(response.text).toBe(JSON.stringify(expected));
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('a reserve of an empty queue answers an empty list', async () => {
    const queue = uniqueQueue('reserve-empty');
    const [id] = await mq.postBodies(queue, 'only');
    expect((await mq.reserve(queue, { delete: true }))[0].id).toBe(id);
    const response = await mq.http.post(mq.path(queue, '/reservations'), { n: 5 });
    expect(response.text).toBe('{"messages":[]}');
  });

  it('a post of many bodies of every length and script keeps each one, in order, across its script chunks', async () => {
    const queue = uniqueQueue('many-bodies');
    const pieces = ['', ',', 'é', '☃', '😀', 'a,b', '\\,', '\u0000'];
    const bodies = Array.from({ length: 150 }, (_, i) => pieces[i % pieces.length]!.repeat(i % 7));
    const ids = await mq.post(
      queue,
      bodies.map((body) => ({ body })),
    );
    expect(ids).toHaveLength(150);
    const reserved = [...(await mq.reserve(queue, { n: 100 })), ...(await mq.reserve(queue, { n: 100 }))];
    expect(reserved.map((message) => message.body)).toEqual(bodies);
    expect(reserved.map((message) => message.id)).toEqual(ids);
  });

  it('a queue’s reservation hashes stay hash tables once messages were reserved (no listpack scans), and their marker is no message', async () => {
    const queue = uniqueQueue('hash-tables');
    const keys = server.running.ctx.mq.keys.queue({ projectId: server.projectId, name: queue });
    const [countKey, ridKey] = [keys[QUEUE_KEY_PARTS.indexOf('count')]!, keys[QUEUE_KEY_PARTS.indexOf('rid')]!];
    const redis = server.openRedis();
    try {
      await mq.postBodies(queue, 'a', 'b');
      const reserved = await mq.reserve(queue, { n: 2 });
      expect(await redis.object('ENCODING', countKey)).toBe('hashtable');
      expect(await redis.object('ENCODING', ridKey)).toBe('hashtable');
      const ids = reserved.map((message) => ({ id: message.id, reservation_id: message.reservation_id }));
      expect((await mq.http.delete(mq.path(queue, '/messages'), { ids })).status).toBe(200);
      expect(await redis.object('ENCODING', ridKey)).toBe('hashtable');
      expect((await mq.info(queue)).size).toBe(0);
      expect((await mq.http.get(mq.path(queue, '/messages/~'))).status).toBe(404);
      expect(await mq.reserve(queue)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });

  it('the reserve answer is the JSON text JSON.stringify writes, byte for byte (the script writes it)', async () => {
    const queue = uniqueQueue('answer-bytes');
    const controls = Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).join('');
    const bodies = [`${controls} "q" \\ / \u007f é ☃ 😀 \u2028`, '\\/ \\u007f \\\\"', ''];
    await mq.post(queue, [
      { body: bodies[0]! },
      { body: bodies[1]!, push_headers: { 'X-Path': 'a/b "c"', Other: 'é' } },
      { body: bodies[2]! },
    ]);
    const response = await mq.http.post(mq.path(queue, '/reservations'), { n: 3 });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.body.messages.map((message: { body: string }) => message.body)).toEqual(bodies);
    expect(response.body.messages[1].push_headers).toEqual({ 'X-Path': 'a/b "c"', Other: 'é' });
    expect(response.text).toBe(JSON.stringify(response.body));
    expect(response.body.messages.map((message: object) => Object.keys(message))).toEqual([
      ['id', 'body', 'reserved_count', 'reservation_id'],
      ['id', 'body', 'reserved_count', 'reservation_id', 'push_headers'],
      ['id', 'body', 'reserved_count', 'reservation_id'],
    ]);
    const empty = await mq.http.post(mq.path(queue, '/reservations'), { n: 3 });
    expect(empty.text).toBe('{"messages":[]}');
  });

  it('clients sending JSON bodies with GET and DELETE are understood', async () => {
    const queue = uniqueQueue('json-on-get');
    await mq.postBodies(queue, 'a');
    const info = await rawRequest(server.url, 'GET', mq.path(queue), server.token, {});
    expect(info.status).toBe(200);
    const peek = await rawRequest(server.url, 'GET', mq.path(queue, '/messages?n=1'), server.token, {});
    expect(peek.body.messages).toHaveLength(1);
    const removed = await rawRequest(server.url, 'DELETE', mq.path(queue), server.token, {});
    expect(removed.body).toEqual({ msg: 'Deleted' });
  });
});

describe('webhook', () => {
  it('creates the queue and posts the raw body as one message', async () => {
    const queue = uniqueQueue('webhook');
    const raw = '{"event":"push","ref":"main"}';
    const response = await mq.http.request('POST', mq.path(queue, '/webhook'), {
      raw,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.status).toBe(201);
    expect(response.body.msg).toBe('Messages put on queue.');
    const [message] = await mq.reserve(queue);
    expect(message.body).toBe(raw);
    expect(message.id).toBe(response.body.id);
  });

  it('accepts any content type', async () => {
    const queue = uniqueQueue('webhook-form');
    await mq.http.request('POST', mq.path(queue, '/webhook'), {
      raw: 'a=1&b=2',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    await mq.http.request('POST', mq.path(queue, '/webhook'), {
      raw: 'plain text',
      headers: { 'Content-Type': 'text/plain' },
    });
    await mq.http.request('POST', mq.path(queue, '/webhook'), {
      raw: 'not json {',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(bodies(await mq.reserve(queue, { n: 5 }))).toEqual(['a=1&b=2', 'plain text', 'not json {']);
  });

  it('X-Subscribers-* headers become push headers; invalid ones are dropped silently', async () => {
    const queue = uniqueQueue('webhook-headers');
    const response = await mq.http.request('POST', mq.path(queue, '/webhook'), {
      raw: 'body',
      headers: {
        'Content-Type': 'text/plain',
        'X-Subscribers-Token': 'abc',
        'X-Subscribers-Content-Type': 'text/html',
        'X-Subscribers-Service-Message-Id': '1',
        [`X-Subscribers-${'n'.repeat(65)}`]: 'too long a name',
        'X-Subscribers-Big': 'v'.repeat(1025),
        'X-Other': 'not a push header',
      },
    });
    expect(response.status).toBe(201);
    const message = (await mq.http.get(mq.path(queue, `/messages/${response.body.id}`))).body.message;
    expect(message.push_headers).toEqual({ Token: 'abc' });
  });

  it('keeps at most five push headers', async () => {
    const queue = uniqueQueue('webhook-five');
    const headers: Record<string, string> = { 'Content-Type': 'text/plain' };
    for (let i = 1; i <= 7; i++) headers[`X-Subscribers-H${i}`] = `v${i}`;
    const response = await mq.http.request('POST', mq.path(queue, '/webhook'), { raw: 'body', headers });
    const message = (await mq.http.get(mq.path(queue, `/messages/${response.body.id}`))).body.message;
    expect(Object.keys(message.push_headers)).toHaveLength(5);
  });
});

describe('metrics', () => {
  it('counts posted, reserved, deleted and dead-lettered messages and waiting long-polls', async () => {
    const value = async (name: string) => {
      const text = (await mq.http.get('/metrics')).text;
      return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
    };
    const before = {
      posted: await value('ferrum_mq_messages_posted_total'),
      reserved: await value('ferrum_mq_messages_reserved_total'),
      deleted: await value('ferrum_mq_messages_deleted_total'),
      dead: await value('ferrum_mq_messages_dead_lettered_total'),
    };
    const queue = uniqueQueue('metrics');
    await mq.createQueue(queue, { dead_letter: { queue_name: `${queue}-dead`, max_reservations: 1 } });
    await mq.postBodies(queue, 'a', 'b');
    const [a, b] = await mq.reserve(queue, { n: 2 });
    await mq.delete(queue, a.id, a.reservation_id);
    await mq.http.post(mq.path(queue, `/messages/${b.id}/release`), { reservation_id: b.reservation_id });
    await mq.reserve(queue);
    expect(await value('ferrum_mq_messages_posted_total')).toBe(before.posted + 2);
    expect(await value('ferrum_mq_messages_reserved_total')).toBe(before.reserved + 2);
    expect(await value('ferrum_mq_messages_deleted_total')).toBe(before.deleted + 1);
    expect(await value('ferrum_mq_messages_dead_lettered_total')).toBe(before.dead + 1);
    expect(await value('ferrum_mq_long_poll_waiters')).toBeGreaterThanOrEqual(0);
  });
});
