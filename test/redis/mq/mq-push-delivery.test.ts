import { describe, expect, it } from 'vitest';
import {
  RESERVED_PUSH_HEADERS,
  useMqClient,
  pushStatuses,
  settledPushStatuses,
  uniqueQueue,
} from '../../helpers/mq.js';
import { useTestServer } from '../../helpers/test-file.js';
import { useSubscribers } from '../../helpers/subscribers-of-file.js';
import { eventually } from '../../helpers/eventually.js';
import { refusedUrl } from '../../helpers/push-subscriber.js';

const server = useTestServer({ FERRUM_MQ_MIN_TIMEOUT: '1', FERRUM_MQ_PUSH_TIMEOUT_MS: '300' });
const mq = useMqClient(server);
const subscriber = useSubscribers();

async function pushQueue(
  type: 'multicast' | 'unicast',
  subs: Array<{ name: string; url: string; headers?: Record<string, string> }>,
  push: object = {},
  extra: object = {},
): Promise<string> {
  const name = uniqueQueue(type);
  const response = await mq.http.put(mq.path(name), {
    queue: { type, push: { subscribers: subs, retries: 0, retries_delay: 0, ...push }, ...extra },
  });
  expect(response.status, response.text).toBe(200);
  return name;
}

const statuses = (queue: string, id: string) => pushStatuses(mq, queue, id);
const settled = (queue: string, id: string, expected: Record<string, string>) =>
  settledPushStatuses(mq, queue, id, expected);

describe('push delivery', () => {
  // A queue announced while the deliverer is still reading the list of push queues must not wait
  // for the next periodic re-read (10 s): that lost announcement made deliveries late under load.
  it('serves push queues created at the same moment at once, each announcement counted', async () => {
    const sub = await subscriber();
    const queues = await Promise.all(
      Array.from({ length: 12 }, () => pushQueue('unicast', [{ name: 'only', url: sub.url }])),
    );
    await Promise.all(queues.map((queue) => mq.postBodies(queue, queue)));
    const received = await sub.waitFor(queues.length, 8000);
    expect(new Set(received.map((push) => push.body))).toEqual(new Set(queues));
  });

  it('multicast delivers each message to all 3 subscribers and removes it once all answered 200', async () => {
    const subs = await Promise.all([subscriber(), subscriber(), subscriber()]);
    const queue = await pushQueue(
      'multicast',
      subs.map((s, i) => ({ name: `s${i}`, url: s.url })),
    );
    // Bodies reach subscribers as the bytes stored (push delivery never decodes them): multi-byte
    // characters, '/' and DEL (which the JSON of other replies escapes) arrive as posted.
    const body = 'hello all é ☃ 😀 / \u007f \\';
    const [id] = await mq.postBodies(queue, body);
    for (const s of subs) {
      const [received] = await s.waitFor(1);
      expect(received!.body).toBe(body);
      expect(received!.headers['service-message-id']).toBe(id);
    }
    const list = await settled(queue, id!, { s0: 'deleted', s1: 'deleted', s2: 'deleted' });
    expect(list.map((entry) => [entry.name, entry.tries, entry.status_code])).toEqual([
      ['s0', 1, 200],
      ['s1', 1, 200],
      ['s2', 1, 200],
    ]);
    expect(list[0].last_try_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await mq.peek(queue)).toEqual([]);
  });

  it('multicast delivers a batch of messages to every subscriber exactly once', async () => {
    const subs = await Promise.all([subscriber(), subscriber()]);
    const queue = await pushQueue(
      'multicast',
      subs.map((s, i) => ({ name: `s${i}`, url: s.url })),
    );
    const bodies = Array.from({ length: 40 }, (_, i) => `m${i}`);
    await mq.postBodies(queue, ...bodies);
    for (const s of subs) {
      await s.waitFor(40);
      expect(s.received.map((r) => r.body).sort()).toEqual([...bodies].sort());
    }
    await eventually(async () => ((await mq.info(queue)).size === 0 ? true : undefined));
  });

  it('unicast fails over from a refused and a failing subscriber to one that accepts, once', async () => {
    const failing = await subscriber(() => 500);
    const accepting = await subscriber();
    const queue = await pushQueue(
      'unicast',
      [
        { name: 'refused', url: await refusedUrl() },
        { name: 'failing', url: failing.url },
        { name: 'ok', url: accepting.url },
      ],
      { retries: 3 },
    );
    const [id] = await mq.postBodies(queue, 'one of you');
    await accepting.waitFor(1);
    const list = await eventually(async () => {
      const current = await statuses(queue, id!);
      return current.find((entry) => entry.name === 'ok').status === 'deleted' ? current : undefined;
    });
    expect(accepting.received).toHaveLength(1);
    const refused = list.find((entry) => entry.name === 'refused');
    if (refused.tries > 0) expect(refused).toMatchObject({ status: 'retrying', status_code: 0 });
    expect(await mq.peek(queue)).toEqual([]);
  });

  it('a 202 keeps the message reserved until the subscriber acknowledges with reservation_id and subscriber_name', async () => {
    const sub = await subscriber(() => 202);
    const queue = await pushQueue('multicast', [{ name: 'slow', url: sub.url }], {}, { message_timeout: 30 });
    const [id] = await mq.postBodies(queue, 'long job');
    const [received] = await sub.waitFor(1);
    const reservationId = received!.headers['service-reservation-id'] as string;
    expect(received!.headers['iron-reservation-id']).toBe(reservationId);
    await settled(queue, id!, { slow: 'reserved' });
    expect((await mq.info(queue)).size).toBe(1);

    const path = mq.path(queue, `/messages/${id}`);
    const missing = await mq.http.delete(path, { subscriber_name: 'slow' });
    expect(missing.status).toBe(406);
    expect(missing.body.msg).toMatch(/reservation_id/);
    const wrong = await mq.http.delete(path, { reservation_id: 'nope', subscriber_name: 'slow' });
    expect(wrong.status).toBe(403);
    const stranger = await mq.http.delete(path, { reservation_id: reservationId, subscriber_name: 'nobody' });
    expect(stranger.status).toBe(404);
    const ack = await mq.http.delete(path, { reservation_id: reservationId, subscriber_name: 'slow' });
    expect(ack.status, ack.text).toBe(200);
    expect(ack.body.msg).toBe('Deleted');
    await settled(queue, id!, { slow: 'deleted' });
    expect((await mq.info(queue)).size).toBe(0);
    expect(sub.received).toHaveLength(1);
    const again = await mq.http.delete(path, { reservation_id: reservationId, subscriber_name: 'slow' });
    expect(again.status).toBe(404);
  });

  it('the shared acknowledgement (version 1 style) needs no reservation id', async () => {
    const sub = await subscriber(() => 202);
    const queue = await pushQueue(
      'multicast',
      [
        { name: 'v1', url: sub.url },
        { name: 'other', url: sub.url },
      ],
      {},
      { message_timeout: 30 },
    );
    const [id] = await mq.postBodies(queue, 'v1 job');
    await settled(queue, id!, { v1: 'reserved', other: 'reserved' });
    const service = server.running.ctx.mq;
    const ref = { projectId: server.projectId, name: queue };
    await service.push.acknowledge(ref, id!, '', 'v1');
    await settled(queue, id!, { v1: 'deleted', other: 'reserved' });
    expect((await mq.info(queue)).size).toBe(1);
    await service.push.acknowledge(ref, id!, '', 'other');
    expect((await mq.info(queue)).size).toBe(0);
    const [status] = await service.push.statuses(ref, id!);
    expect(status).toMatchObject({ name: 'v1', status: 'deleted', statusCode: 202, tries: 1 });
  });

  it('a 202 never acknowledged counts as a failed try once message_timeout passes and is pushed again', async () => {
    const sub = await subscriber((n) => (n === 0 ? 202 : 200));
    const queue = await pushQueue(
      'multicast',
      [{ name: 'forgetful', url: sub.url }],
      { retries: 1 },
      { message_timeout: 1 },
    );
    const [id] = await mq.postBodies(queue, 'ack me');
    await sub.waitFor(2, 4000);
    const [entry] = await settled(queue, id!, { forgetful: 'deleted' });
    expect(entry).toMatchObject({ tries: 2, retries_remaining: 0, status_code: 200 });
  });

  it('a 500 is retried after retries_delay while retries remain', async () => {
    const sub = await subscriber((n) => (n < 2 ? 500 : 200));
    const queue = await pushQueue('multicast', [{ name: 'flaky', url: sub.url }], { retries: 3, retries_delay: 1 });
    const [id] = await mq.postBodies(queue, 'try again');
    await sub.waitFor(1);
    const [first] = await settled(queue, id!, { flaky: 'retrying' });
    expect(first).toMatchObject({
      status_code: 500,
      tries: 1,
      retries_remaining: 2,
      error_message: 'subscriber answered 500',
    });
    const received = await sub.waitFor(3, 5000);
    expect(received[1]!.at - received[0]!.at).toBeGreaterThanOrEqual(950);
    expect(received[2]!.at - received[1]!.at).toBeGreaterThanOrEqual(950);
    const [last] = await settled(queue, id!, { flaky: 'deleted' });
    expect(last).toMatchObject({ status_code: 200, tries: 3, retries_remaining: 1 });
  });

  it('timeouts and refused connections exhaust retries and report the message on the error queue', async () => {
    const hanging = await subscriber(() => 'hang');
    const errorQueue = uniqueQueue('errors');
    const refused = await refusedUrl();
    const queue = await pushQueue(
      'multicast',
      [
        { name: 'hangs', url: hanging.url },
        { name: 'refuses', url: refused },
      ],
      { retries: 1, retries_delay: 0, error_queue: errorQueue },
    );
    const [id] = await mq.post(queue, [{ body: 'doomed', push_headers: { 'X-Trace': 't-1' } }]);
    const list = await settled(queue, id!, { hangs: 'error', refuses: 'error' });
    expect(hanging.received).toHaveLength(2);
    expect(list.find((entry) => entry.name === 'hangs')).toMatchObject({
      tries: 2,
      retries_remaining: 0,
      status_code: 0,
      error_message: 'no answer within 300 ms',
    });
    expect(list.find((entry) => entry.name === 'refuses').error_message).toMatch(/ECONNREFUSED/);
    const [report] = await eventually(async () => {
      const found = await mq.peek(errorQueue).catch(() => []);
      return found.length > 0 ? found : undefined;
    });
    const content = JSON.parse(report.body);
    expect(content).toMatchObject({
      source_msg_id: id,
      source_queue: queue,
      body: 'doomed',
      headers: { 'X-Trace': 't-1' },
    });
    expect(content.subscribers).toEqual([
      { name: 'hangs', url: hanging.url, status: 'error', status_code: 0, error: 'no answer within 300 ms' },
      { name: 'refuses', url: refused, status: 'error', status_code: 0, error: expect.stringMatching(/ECONNREFUSED/) },
    ]);
    expect((await mq.info(queue)).size).toBe(0);
  });

  it('no error queue message when every subscriber succeeded, and a failure without error_queue is simply dropped', async () => {
    const failing = await subscriber(() => 503);
    const queue = await pushQueue('multicast', [{ name: 'down', url: failing.url }]);
    const [id] = await mq.postBodies(queue, 'lost');
    const [entry] = await settled(queue, id!, { down: 'error' });
    expect(entry).toMatchObject({ tries: 1, status_code: 503 });
    expect((await mq.info(queue)).size).toBe(0);
  });

  it('paces deliveries to push.rate messages per second', async () => {
    const sub = await subscriber();
    const queue = await pushQueue('multicast', [{ name: 'paced', url: sub.url }], { rate: 5 });
    await mq.postBodies(queue, ...Array.from({ length: 10 }, (_, i) => `p${i}`));
    const received = await sub.waitFor(10, 5000);
    // One second of burst (5 messages), then one message every 200 ms.
    expect(received[9]!.at - received[0]!.at).toBeGreaterThanOrEqual(800);
  });

  it('sends subscriber headers, push headers and the service headers under both prefixes', async () => {
    const sub = await subscriber();
    const queue = await pushQueue('multicast', [
      { name: 'h', url: sub.url, headers: { 'X-Api-Key': 'k1', 'X-Shared': 'from-subscriber' } },
    ]);
    const [id] = await mq.post(queue, [
      { body: '{"a":1}', push_headers: { 'X-Shared': 'from-message', 'X-Only-Message': 'm' } },
    ]);
    const [received] = await sub.waitFor(1);
    const headers = received!.headers;
    expect(headers).toMatchObject({
      'x-api-key': 'k1',
      'x-shared': 'from-message',
      'x-only-message': 'm',
      'content-type': 'text/plain; charset=utf-8',
      'service-message-id': id,
      'iron-message-id': id,
      'service-subscriber-name': 'h',
      'iron-subscriber-name': 'h',
    });
    expect(headers['user-agent']).toMatch(/Ferrum/);
    const url = `${server.url}/3/projects/${server.projectId}/queues/${encodeURIComponent(queue)}/messages/${id}`;
    expect(headers['service-subscriber-message-url']).toBe(url);
    expect(headers['iron-subscriber-message-url']).toBe(url);
  });

  it('refuses reserved header names on messages and on subscribers', async () => {
    const sub = await subscriber();
    const queue = await pushQueue('multicast', [{ name: 'h', url: sub.url }]);
    for (const name of RESERVED_PUSH_HEADERS) {
      const post = await mq.http.post(mq.path(queue, '/messages'), {
        messages: [{ body: 'x', push_headers: { [name]: 'v' } }],
      });
      expect(post.status).toBe(400);
      expect(post.body.msg).toContain('is reserved');
      const add = await mq.http.post(mq.path(queue, '/subscribers'), {
        subscribers: [{ name: 'bad', url: sub.url, headers: { [name]: 'v' } }],
      });
      expect(add.status).toBe(400);
      expect(add.body.msg).toContain('is reserved');
    }
  });
});
