import { describe, expect, it } from 'vitest';
import { useMqClient, uniqueQueue } from '../../helpers/mq.js';
import { useBeforeAll, useTestServer } from '../../helpers/test-file.js';
import { TestSubscriber } from '../../helpers/push-subscriber.js';

const server = useTestServer();
const mq = useMqClient(server);
const sub = useBeforeAll(
  () => TestSubscriber.start(() => 200),
  (started) => started.stop(),
);

async function pushQueue(): Promise<string> {
  const name = uniqueQueue('subs');
  const response = await mq.http.put(mq.path(name), {
    queue: {
      type: 'multicast',
      push: {
        subscribers: [
          { name: 'a', url: 'http://127.0.0.1:9/a' },
          { name: 'b', url: 'http://127.0.0.1:9/b' },
        ],
        retries: 0,
      },
    },
  });
  expect(response.status, response.text).toBe(200);
  return name;
}

async function subscriberList(queue: string): Promise<Array<{ name: string; url: string }>> {
  return (await mq.info(queue)).push.subscribers.map((s: any) => ({ name: s.name, url: s.url }));
}

describe('subscribers endpoints', () => {
  it('POST adds new subscribers and updates existing ones by name', async () => {
    const queue = await pushQueue();
    const response = await mq.http.post(mq.path(queue, '/subscribers'), {
      subscribers: [
        { name: 'b', url: 'http://127.0.0.1:9/b2' },
        { name: 'c', url: sub.url },
      ],
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ msg: 'Updated' });
    expect(await subscriberList(queue)).toEqual([
      { name: 'a', url: 'http://127.0.0.1:9/a' },
      { name: 'b', url: 'http://127.0.0.1:9/b2' },
      { name: 'c', url: sub.url },
    ]);
  });

  it('PUT replaces the whole list; DELETE removes by name', async () => {
    const queue = await pushQueue();
    expect(
      (await mq.http.put(mq.path(queue, '/subscribers'), { subscribers: [{ name: 'only', url: sub.url }] })).status,
    ).toBe(200);
    expect(await subscriberList(queue)).toEqual([{ name: 'only', url: sub.url }]);
    expect(
      (await mq.http.post(mq.path(queue, '/subscribers'), { subscribers: [{ name: 'two', url: sub.url }] })).status,
    ).toBe(200);
    const removed = await mq.http.delete(mq.path(queue, '/subscribers'), { subscribers: [{ name: 'only' }] });
    expect(removed.status, removed.text).toBe(200);
    expect(await subscriberList(queue)).toEqual([{ name: 'two', url: sub.url }]);
  });

  it('a subscriber added later receives the messages posted after', async () => {
    const queue = await pushQueue();
    await mq.http.put(mq.path(queue, '/subscribers'), { subscribers: [{ name: 'live', url: sub.url }] });
    const before = sub.received.length;
    await mq.postBodies(queue, 'to the new subscriber');
    const received = await sub.waitFor(before + 1);
    expect(received[before]!.body).toBe('to the new subscriber');
    expect(received[before]!.headers['service-subscriber-name']).toBe('live');
  });

  it('refuses bad subscriber lists with a 4xx naming the problem', async () => {
    const queue = await pushQueue();
    const cases: Array<[unknown, number, RegExp]> = [
      [{}, 406, /subscribers is required/],
      [{ subscribers: 'x' }, 400, /subscribers must be a list/],
      [{ subscribers: [{ url: sub.url }] }, 406, /subscribers\[0\]\.name is required/],
      [{ subscribers: [{ name: 'x' }] }, 406, /subscribers\[0\]\.url is required/],
      [{ subscribers: [{ name: 'x', url: 'ftp://h/x' }] }, 400, /http or https/],
      [{ subscribers: [{ name: 'x', url: 'not a url' }] }, 400, /absolute URL/],
      [
        {
          subscribers: [
            { name: 'x', url: sub.url },
            { name: 'x', url: sub.url },
          ],
        },
        400,
        /given twice/,
      ],
      [{ subscribers: [{ name: 'x', url: sub.url, headers: { 'X-A': 5 } }] }, 400, /value must be a string/],
    ];
    for (const [body, status, msg] of cases) {
      const response = await mq.http.post(mq.path(queue, '/subscribers'), body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.msg).toMatch(msg);
    }
    const emptied = await mq.http.delete(mq.path(queue, '/subscribers'), {
      subscribers: [{ name: 'a' }, { name: 'b' }],
    });
    expect(emptied.status).toBe(400);
    expect(emptied.body.msg).toMatch(/at least one subscriber/);
  });

  it('refuses subscribers on a pull queue and on a missing queue', async () => {
    const pull = uniqueQueue('pull');
    await mq.postBodies(pull, 'x');
    for (const method of ['post', 'put', 'delete'] as const) {
      const response = await mq.http[method](mq.path(pull, '/subscribers'), {
        subscribers: [{ name: 'a', url: sub.url }],
      });
      expect(response.status).toBe(400);
      expect(response.body.msg).toMatch(/push queue/);
    }
    const missing = await mq.http.post(mq.path(uniqueQueue('missing'), '/subscribers'), {
      subscribers: [{ name: 'a', url: sub.url }],
    });
    expect(missing.status).toBe(404);
  });

  it('push statuses: queued before delivery, 404 for an unknown message, 400 on a pull queue', async () => {
    const queue = await pushQueue();
    const unknown = await mq.http.get(mq.path(queue, '/messages/000000000000000000000000/subscribers'));
    expect(unknown.status).toBe(404);
    const pull = uniqueQueue('pull');
    const [id] = await mq.postBodies(pull, 'x');
    const onPull = await mq.http.get(mq.path(pull, `/messages/${id}/subscribers`));
    expect(onPull.status).toBe(400);
    expect(onPull.body.msg).toMatch(/push queues/);
    const ack = await mq.http.delete(mq.path(pull, `/messages/${id}`), { reservation_id: 'r', subscriber_name: 'a' });
    expect(ack.status).toBe(400);
  });
});
