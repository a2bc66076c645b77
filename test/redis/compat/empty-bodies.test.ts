import { afterAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/test-file.js';
import { useMqClient, uniqueQueue } from '../../helpers/mq.js';
import { useMqV1Client } from '../../helpers/mq-v1.js';
import { CLIENT_HEADERS, type ClientName } from '../../helpers/client-headers.js';
import { TestSubscriber } from '../../helpers/push-subscriber.js';
import { scaled } from '../../helpers/pace.js';

// An empty string is a message body like any other, in both API versions and on every path a
// body travels: post, get, peek, reserve, webhook, push delivery, dead letter hand-over.
const server = useTestServer({ FERRUM_MQ_PUSH_TIMEOUT_MS: String(scaled(1000)) });
const mq = useMqClient(server);
const v1 = useMqV1Client(server);
const subscribers: TestSubscriber[] = [];

afterAll(async () => {
  await Promise.all(subscribers.map((subscriber) => subscriber.stop()));
});

/** A post exactly as the client writes it: `{"messages":[{"body":""}]}` with its own headers. */
function postAsClient(client: ClientName, path: string) {
  return server.http.request('POST', path, {
    raw: JSON.stringify({ messages: [{ body: '' }] }),
    headers: CLIENT_HEADERS[client],
  });
}

describe('version 3', () => {
  for (const client of ['python', 'ruby', 'java'] as const) {
    it(`${client}: an empty body is posted, read, peeked, reserved and deleted`, async () => {
      const queue = uniqueQueue(`empty-${client}`);
      const posted = await postAsClient(client, mq.path(queue, '/messages'));
      expect(posted.status, posted.text).toBe(201);
      const [id] = posted.body.ids;
      const got = await server.http.get(mq.path(queue, `/messages/${id}`));
      expect(got.body.message).toMatchObject({ id, body: '' });
      expect((await mq.peek(queue)).map((message) => message.body)).toEqual(['']);
      const [reserved] = await mq.reserve(queue);
      expect(reserved).toMatchObject({ id, body: '', reserved_count: 1 });
      expect((await mq.delete(queue, id, reserved.reservation_id)).status).toBe(200);
    });
  }

  it('an empty webhook body becomes an empty message', async () => {
    const queue = uniqueQueue('empty-webhook');
    const response = await server.http.request('POST', mq.path(queue, '/webhook'), {
      raw: '',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(response.status, response.text).toBe(201);
    expect((await mq.peek(queue)).map((message) => message.body)).toEqual(['']);
  });

  it('a push subscriber receives the empty body as an empty request body', async () => {
    const subscriber = await TestSubscriber.start(() => 200);
    subscribers.push(subscriber);
    const queue = uniqueQueue('empty-push');
    const created = await mq.createQueue(queue, {
      type: 'multicast',
      push: { subscribers: [{ name: 's', url: subscriber.url }], retries: 0 },
    });
    expect(created.status, created.text).toBe(200);
    expect((await postAsClient('python', mq.path(queue, '/messages'))).status).toBe(201);
    const [delivery] = await subscriber.waitFor(1, 10_000);
    expect(delivery!.body).toBe('');
    expect(delivery!.headers['content-length']).toBe('0');
  });

  it('a dead-lettered empty message keeps its empty body', async () => {
    const queue = uniqueQueue('empty-dead-source');
    const dead = uniqueQueue('empty-dead');
    const created = await mq.createQueue(queue, { dead_letter: { queue_name: dead, max_reservations: 1 } });
    expect(created.status, created.text).toBe(200);
    const [id] = await mq.postBodies(queue, '');
    const [first] = await mq.reserve(queue);
    const released = await server.http.post(mq.path(queue, `/messages/${id}/release`), {
      reservation_id: first.reservation_id,
    });
    expect(released.status, released.text).toBe(200);
    expect(await mq.reserve(queue)).toEqual([]);
    expect((await mq.peek(dead)).map((message) => ({ id: message.id, body: message.body }))).toEqual([
      { id, body: '' },
    ]);
  });
});

describe('version 1', () => {
  for (const client of ['python', 'ruby'] as const) {
    it(`${client}: an empty body is posted, peeked and got`, async () => {
      const queue = uniqueQueue(`empty-v1-${client}`);
      const posted = await postAsClient(client, v1.path(queue, '/messages'));
      expect(posted.status, posted.text).toBe(201);
      const [id] = posted.body.ids;
      expect(await v1.peek(queue)).toMatchObject([{ id, body: '' }]);
      expect((await v1.get(queue)).messages).toMatchObject([{ id, body: '' }]);
    });
  }

  it('an empty webhook body becomes an empty message', async () => {
    const queue = uniqueQueue('empty-v1-webhook');
    const response = await server.http.post(v1.path(queue, '/messages/webhook'), undefined, { raw: '' });
    expect(response.status, response.text).toBe(201);
    expect((await v1.peek(queue)).map((message) => message.body)).toEqual(['']);
  });
});

describe('what is still refused', () => {
  it('a missing body is 406 and a body that is not a string is 400, in both versions', async () => {
    for (const path of [mq.path(uniqueQueue('no-body'), '/messages'), v1.path(uniqueQueue('no-body'), '/messages')]) {
      const missing = await server.http.post(path, { messages: [{}] });
      expect(missing.status).toBe(406);
      expect(missing.body.msg).toMatch(/messages\[0\]\.body is required/);
      const number = await server.http.post(path, { messages: [{ body: 5 }] });
      expect(number.status).toBe(400);
      expect(number.body.msg).toMatch(/messages\[0\]\.body must be a string/);
    }
  });
});
