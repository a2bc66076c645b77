import { describe, expect, it } from 'vitest';
import { useMqClient, uniqueQueue } from '../../helpers/mq.js';
import { useMqV1Client } from '../../helpers/mq-v1.js';
import { useTestServer } from '../../helpers/test-file.js';
import { scriptClock } from '../../../src/core/lua.js';

// Timeouts of a second keep the timing rows fast (the minimum is configurable).
const server = useTestServer({ FERRUM_MQ_MIN_TIMEOUT: '1' });
const v3 = useMqClient(server);
const v1 = useMqV1Client(server);
describe('version 1 messages', () => {
  it('post creates the queue and answers ids and the message', async () => {
    const queue = uniqueQueue('post');
    const response = await server.http.post(v1.path(queue, '/messages'), { messages: [{ body: 'a' }, { body: 'b' }] });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      ids: [expect.stringMatching(/^\d+$/), expect.stringMatching(/^\d+$/)],
      msg: 'Messages put on queue.',
    });
    expect(await v1.size(queue)).toBe(2);
  });

  it('get reserves: messages carry id, body and timeout (default 60); others do not see them', async () => {
    const queue = uniqueQueue('get');
    const [id] = await v1.post(queue, [{ body: 'one' }]);
    const got = await v1.get(queue);
    expect(got.messages).toEqual([expect.objectContaining({ id, body: 'one', timeout: 60 })]);
    expect(got.timeout).toBe(60);
    expect((await v1.get(queue)).messages).toEqual([]);
    expect(await v1.size(queue)).toBe(1);
  });

  it('per-message timeout: the message returns to the queue after its own timeout', async () => {
    const queue = uniqueQueue('own-timeout');
    const [short] = await v1.post(queue, [{ body: 'short', timeout: 1 }]);
    const [long] = await v1.post(queue, [{ body: 'long', timeout: 120 }]);
    const got = await v1.get(queue, '?n=2');
    expect(got.messages.map((message) => [message.id, message.timeout])).toEqual([
      [short, 1],
      [long, 120],
    ]);
    scriptClock.advance(1200);
    expect((await v1.get(queue, '?n=2')).messages.map((message) => message.id)).toEqual([short]);
  });

  it('get with timeout overrides the posted one', async () => {
    const queue = uniqueQueue('get-timeout');
    const [id] = await v1.post(queue, [{ body: 'x', timeout: 120 }]);
    const got = await v1.get(queue, '?timeout=1');
    expect(got.messages[0]).toMatchObject({ id, timeout: 1 });
    expect(got.timeout).toBe(1);
    scriptClock.advance(1200);
    expect((await v1.get(queue)).messages.map((message) => message.id)).toEqual([id]);
  });

  it('delay: not available until it passes', async () => {
    const queue = uniqueQueue('delay');
    const [id] = await v1.post(queue, [{ body: 'later', delay: 1 }]);
    expect((await v1.get(queue)).messages).toEqual([]);
    expect(await v1.size(queue)).toBe(1);
    scriptClock.advance(1100);
    expect((await v1.get(queue)).messages.map((message) => message.id)).toEqual([id]);
  });

  it('expires_in: the message is gone after that many seconds', async () => {
    const queue = uniqueQueue('expires');
    await v1.post(queue, [{ body: 'brief', expires_in: 1 }, { body: 'stays' }]);
    scriptClock.advance(1100);
    expect((await v1.peek(queue)).map((message) => message.body)).toEqual(['stays']);
    expect(await v1.size(queue)).toBe(1);
  });

  it('peek does not reserve and shows each message timeout', async () => {
    const queue = uniqueQueue('peek');
    const ids = await v1.post(queue, [{ body: 'p1', timeout: 45 }, { body: 'p2' }]);
    const peeked = await v1.peek(queue);
    expect(peeked.map((message) => [message.id, message.body, message.timeout])).toEqual([
      [ids[0], 'p1', 45],
      [ids[1], 'p2', 60],
    ]);
    expect((await v1.get(queue, '?n=2')).messages).toHaveLength(2);
  });

  it('get one message by id', async () => {
    const queue = uniqueQueue('get-one');
    const [id] = await v1.post(queue, [{ body: 'single', timeout: 90 }]);
    const response = await server.http.get(v1.path(queue, `/messages/${id}`));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id, body: 'single', timeout: 90 });
  });

  it('delete: no reservation id needed, reserved or not', async () => {
    const queue = uniqueQueue('delete');
    const [free, reserved] = await v1.post(queue, [{ body: 'free' }, { body: 'reserved' }]);
    await v3.reserve(queue); // reserves `free` (first)
    for (const id of [free, reserved]) {
      const response = await server.http.delete(v1.path(queue, `/messages/${id}`));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ msg: 'Deleted' });
    }
    expect(await v1.size(queue)).toBe(0);
    const again = await server.http.delete(v1.path(queue, `/messages/${free}`));
    expect(again.status).toBe(404);
    expect(again.body.msg).toMatch(/Message not found/);
  });

  it('batch delete by ids: all or none', async () => {
    const queue = uniqueQueue('batch');
    const ids = await v1.post(queue, [{ body: '1' }, { body: '2' }, { body: '3' }]);
    const refused = await server.http.delete(v1.path(queue, '/messages'), { ids: [ids[0], '999'] });
    expect(refused.status).toBe(404);
    expect(await v1.size(queue)).toBe(3);
    const done = await server.http.delete(v1.path(queue, '/messages'), { ids: [ids[0], ids[1]] });
    expect(done.body).toEqual({ msg: 'Deleted' });
    expect((await v1.peek(queue)).map((message) => message.id)).toEqual([ids[2]]);
  });

  it('touch extends the reservation to the message timeout', async () => {
    const queue = uniqueQueue('touch');
    const [id] = await v1.post(queue, [{ body: 't', timeout: 2 }]);
    await v1.get(queue);
    scriptClock.advance(1200);
    const touched = await server.http.post(v1.path(queue, `/messages/${id}/touch`), {});
    expect(touched.status).toBe(200);
    expect(touched.body).toEqual({ msg: 'Touched' });
    scriptClock.advance(1200); // 2.4 s after the reserve: without the touch it would be back
    expect((await v1.get(queue)).messages).toEqual([]);
    scriptClock.advance(1000);
    expect((await v1.get(queue)).messages.map((message) => message.id)).toEqual([id]);
  });

  it('touch or release of a message that is not reserved: 403 naming why', async () => {
    const queue = uniqueQueue('not-reserved');
    const [id] = await v1.post(queue, [{ body: 'idle' }]);
    for (const action of ['touch', 'release']) {
      const response = await server.http.post(v1.path(queue, `/messages/${id}/${action}`), {});
      expect(response.status).toBe(403);
      expect(response.body.msg).toMatch(/not reserved/);
    }
    const missing = await server.http.post(v1.path(queue, '/messages/12345/touch'), {});
    expect(missing.status).toBe(404);
  });

  it('release: back to the front at once, or after a delay', async () => {
    const queue = uniqueQueue('release');
    const [first, second] = await v1.post(queue, [{ body: 'first' }, { body: 'second' }]);
    await v1.get(queue);
    const released = await server.http.post(v1.path(queue, `/messages/${first}/release`), {});
    expect(released.body).toEqual({ msg: 'Released' });
    expect((await v1.peek(queue)).map((message) => message.id)).toEqual([first, second]);
    await v1.get(queue);
    await server.http.post(v1.path(queue, `/messages/${first}/release`), { delay: 1 });
    expect((await v1.peek(queue)).map((message) => message.id)).toEqual([second]);
    scriptClock.advance(1100);
    expect((await v1.peek(queue)).map((message) => message.id)).toEqual([first, second]);
  });

  it('release without a JSON body: 400', async () => {
    const queue = uniqueQueue('release-body');
    const [id] = await v1.post(queue, [{ body: 'x' }]);
    await v1.get(queue);
    const response = await server.http.post(v1.path(queue, `/messages/${id}/release`));
    expect(response.status).toBe(400);
    expect(response.body.msg).toMatch(/JSON body is required/);
  });

  it('clear removes reserved and available messages', async () => {
    const queue = uniqueQueue('clear');
    await v1.post(queue, [{ body: '1' }, { body: '2' }, { body: '3', delay: 60 }]);
    await v1.get(queue);
    const cleared = await server.http.post(v1.path(queue, '/clear'));
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ msg: 'Cleared' });
    expect(await v1.size(queue)).toBe(0);
    expect((await server.http.post(v1.path(uniqueQueue('nope'), '/clear'))).status).toBe(404);
  });

  it('webhook: the raw body becomes a message; the queue is created', async () => {
    const queue = uniqueQueue('webhook');
    const response = await server.http.post(v1.path(queue, '/messages/webhook'), undefined, {
      raw: 'event=1&x=2',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(201);
    expect(response.body.msg).toBe('Messages put on queue.');
    expect((await v1.peek(queue)).map((message) => message.body)).toEqual(['event=1&x=2']);
  });
});

describe('one queue whichever API touches it', () => {
  it('posted through v1, reserved and deleted through v3', async () => {
    const queue = uniqueQueue('v1-to-v3');
    const [id] = await v1.post(queue, [{ body: 'from v1', timeout: 1 }]);
    const [message] = await v3.reserve(queue);
    expect(message).toMatchObject({ id, body: 'from v1', reserved_count: 1 });
    // v3 reserve without a timeout honours the message's own one (1 s).
    scriptClock.advance(1200);
    const [again] = await v3.reserve(queue, { timeout: 30 });
    expect(again).toMatchObject({ id, reserved_count: 2 });
    expect((await v3.delete(queue, id!, again.reservation_id)).status).toBe(200);
    expect(await v1.size(queue)).toBe(0);
  });

  it('posted through v3, got and deleted through v1', async () => {
    const queue = uniqueQueue('v3-to-v1');
    const [id] = await v3.postBodies(queue, 'from v3');
    const got = await v1.get(queue);
    expect(got.messages).toEqual([expect.objectContaining({ id, body: 'from v3', timeout: 60 })]);
    expect(await v3.reserve(queue)).toEqual([]);
    expect((await server.http.delete(v1.path(queue, `/messages/${id}`))).status).toBe(200);
    expect((await v3.info(queue)).size).toBe(0);
  });

  it('a v3 reservation released through v1; a v3 client cannot pass "*" as a reservation id', async () => {
    const queue = uniqueQueue('cross-release');
    const [id] = await v3.postBodies(queue, 'x');
    const [message] = await v3.reserve(queue);
    const wildcard = await v3.delete(queue, id!, '*');
    expect(wildcard.status).toBe(403);
    expect((await server.http.post(v1.path(queue, `/messages/${id}/release`), {})).status).toBe(200);
    const stale = await v3.delete(queue, id!, message.reservation_id);
    expect(stale.status).toBe(403);
    expect((await v3.reserve(queue))[0]).toMatchObject({ id, reserved_count: 2 });
  });

  it('v3 queue settings apply to v1 posts (message_timeout as the default timeout)', async () => {
    const queue = uniqueQueue('settings');
    await v3.createQueue(queue, { message_timeout: 45 });
    await v1.post(queue, [{ body: 'x' }]);
    expect((await v1.peek(queue))[0].timeout).toBe(45);
    expect((await v1.get(queue)).timeout).toBe(45);
  });
});

describe.concurrent('bad input', () => {
  const cases: Array<[string, unknown, number, RegExp]> = [
    ['no messages field', {}, 406, /messages is required/],
    ['messages not a list', { messages: 'x' }, 400, /messages must be a list/],
    ['empty list', { messages: [] }, 400, /messages/],
    ['body missing', { messages: [{}] }, 406, /messages\[0\]\.body is required/],
    ['body not a string', { messages: [{ body: 5 }] }, 400, /messages\[0\]\.body must be a string/],
    [
      'timeout too big',
      { messages: [{ body: 'x', timeout: 86401 }] },
      400,
      /messages\[0\]\.timeout must be between 1 and 86400/,
    ],
    ['timeout not an integer', { messages: [{ body: 'x', timeout: 'soon' }] }, 400, /timeout must be an integer/],
    ['delay too big', { messages: [{ body: 'x', delay: 604801 }] }, 400, /delay must be between 0 and 604800/],
    ['negative delay', { messages: [{ body: 'x', delay: -1 }] }, 400, /delay must be between 0 and 604800/],
    [
      'expires_in too big',
      { messages: [{ body: 'x', expires_in: 2592001 }] },
      400,
      /expires_in must be between 0 and 2592000/,
    ],
  ];
  for (const [label, body, status, msg] of cases) {
    it(`post: ${label}`, async () => {
      const response = await server.http.post(v1.path(uniqueQueue('bad'), '/messages'), body);
      expect(response.status).toBe(status);
      expect(response.body.msg).toMatch(msg);
    });
  }

  it('bad JSON: 400', async () => {
    const response = await server.http.post(v1.path('q', '/messages'), undefined, {
      raw: '{"messages": [',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(typeof response.body.msg).toBe('string');
  });

  it('get and peek: n and timeout out of range', async () => {
    const queue = uniqueQueue('bad-get');
    await v1.post(queue, [{ body: 'x' }]);
    for (const query of ['?n=0', '?n=abc', '?timeout=86401', '?timeout=-1']) {
      const response = await server.http.get(v1.path(queue, `/messages${query}`));
      expect(response.status, query).toBe(400);
      expect(typeof response.body.msg).toBe('string');
    }
    // n above 100 is served as 100 (see the compatibility notes in docs/api.md).
    expect((await server.http.get(v1.path(queue, '/messages/peek?n=101'))).status).toBe(200);
  });

  it('release delay out of range; batch delete of more than 100', async () => {
    const queue = uniqueQueue('bad-release');
    const [id] = await v1.post(queue, [{ body: 'x' }]);
    await v1.get(queue);
    const release = await server.http.post(v1.path(queue, `/messages/${id}/release`), { delay: 604801 });
    expect(release.status).toBe(400);
    expect(release.body.msg).toMatch(/delay/);
    const batch = await server.http.delete(v1.path(queue, '/messages'), {
      ids: Array.from({ length: 101 }, (_, i) => String(i)),
    });
    expect(batch.status).toBe(400);
    expect(batch.body.msg).toMatch(/ids/);
  });

  it('operations on a missing queue: 404 Queue not found', async () => {
    const queue = uniqueQueue('missing');
    for (const response of [
      await server.http.get(v1.path(queue)),
      await server.http.get(v1.path(queue, '/messages')),
      await server.http.get(v1.path(queue, '/messages/peek')),
      await server.http.delete(v1.path(queue, '/messages/1')),
      await server.http.delete(v1.path(queue)),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.msg).toMatch(/Queue not found/);
    }
  });
});
