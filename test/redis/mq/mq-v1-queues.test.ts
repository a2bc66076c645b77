import { describe, expect, it } from 'vitest';
import { useMqClient, uniqueQueue } from '../../helpers/mq.js';
import { useMqV1Client, MqV1Client } from '../../helpers/mq-v1.js';
import { useTestServer } from '../../helpers/test-file.js';
import { TestSubscriber } from '../../helpers/push-subscriber.js';
import { scaled } from '../../helpers/pace.js';

const server = useTestServer();
const v3 = useMqClient(server);
const v1 = useMqV1Client(server);
const url = (name: string) => `http://127.0.0.1:9/${name}`;

describe.concurrent('version 1 queues', () => {
  it('info: size and the queue fields', async () => {
    const queue = uniqueQueue('info');
    await v1.post(queue, [{ body: 'a' }, { body: 'b' }]);
    const response = await server.http.get(v1.path(queue));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: queue,
      project_id: server.projectId,
      size: 2,
      total_messages: 2,
      push_type: 'pull',
      subscribers: [],
    });
  });

  it('update creates a push queue (multicast by default) with retries defaults', async () => {
    const queue = uniqueQueue('create-push');
    const response = await v1.update(queue, { subscribers: [{ url: url('a') }, { url: url('b') }] });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      name: queue,
      size: 0,
      total_messages: 0,
      push_type: 'multicast',
      retries: 3,
      retries_delay: 60,
      subscribers: [{ url: url('a') }, { url: url('b') }],
    });
    const seenByV3 = await v3.info(queue);
    expect(seenByV3.type).toBe('multicast');
    expect(seenByV3.push.subscribers).toEqual([
      { name: url('a'), url: url('a') },
      { name: url('b'), url: url('b') },
    ]);
  });

  it('update replaces the subscriber set, keeps v3 names and headers of kept URLs, sets retries', async () => {
    const queue = uniqueQueue('replace');
    await v3.createQueue(queue, {
      type: 'unicast',
      push: { subscribers: [{ name: 'first', url: url('a'), headers: { 'X-Key': 'k' } }] },
    });
    const response = await v1.update(queue, {
      subscribers: [{ url: url('a') }, { url: url('c') }],
      retries: 7,
      retries_delay: 5,
    });
    expect(response.body).toMatchObject({
      push_type: 'unicast',
      retries: 7,
      retries_delay: 5,
      subscribers: [{ url: url('a') }, { url: url('c') }],
    });
    expect((await v3.info(queue)).push.subscribers).toEqual([
      { name: 'first', url: url('a'), headers: { 'X-Key': 'k' } },
      { name: url('c'), url: url('c') },
    ]);
  });

  it('push_type pull turns a push queue back into a pull queue; unicast switches type', async () => {
    const queue = uniqueQueue('back-to-pull');
    await v1.update(queue, { subscribers: [{ url: url('a') }] });
    expect((await v1.update(queue, { push_type: 'unicast' })).body.push_type).toBe('unicast');
    const pulled = await v1.update(queue, { push_type: 'pull' });
    expect(pulled.body).toMatchObject({ push_type: 'pull', subscribers: [] });
    const info = await v3.info(queue);
    expect(info.type).toBe('pull');
    expect(info.push).toBeUndefined();
  });

  it('add and remove subscribers (push queues only); the queue object answers', async () => {
    const queue = uniqueQueue('subscribers');
    await v1.update(queue, { subscribers: [{ url: url('a') }] });
    const added = await server.http.post(v1.path(queue, '/subscribers'), {
      subscribers: [{ url: url('b') }, { url: url('a') }],
    });
    expect(added.status).toBe(200);
    expect(added.body.subscribers).toEqual([{ url: url('b') }, { url: url('a') }]);
    const removed = await server.http.delete(v1.path(queue, '/subscribers'), { subscribers: [{ url: url('a') }] });
    expect(removed.body.subscribers).toEqual([{ url: url('b') }]);
    // Version 1 may remove the last one (the hosted service did; iron_go's tests rely on it).
    const last = await server.http.delete(v1.path(queue, '/subscribers'), { subscribers: [{ url: url('b') }] });
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ push_type: 'multicast', subscribers: [] });

    const pull = uniqueQueue('pull-subscribers');
    await v1.post(pull, [{ body: 'x' }]);
    const refused = await server.http.post(v1.path(pull, '/subscribers'), { subscribers: [{ url: url('a') }] });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toMatch(/push queue/);
    expect(
      (await server.http.post(v1.path(uniqueQueue('none'), '/subscribers'), { subscribers: [{ url: url('a') }] }))
        .status,
    ).toBe(404);
  });

  it('delete: Deleted.; then 404', async () => {
    const queue = uniqueQueue('delete');
    await v1.post(queue, [{ body: 'x' }]);
    const response = await server.http.delete(v1.path(queue));
    expect(response.body).toEqual({ msg: 'Deleted.' });
    expect((await server.http.get(v1.path(queue))).status).toBe(404);
  });

  it("push statuses: 400 on a pull queue, the subscribers' delivery state on a push queue", async () => {
    const pull = uniqueQueue('status-pull');
    const [id] = await v1.post(pull, [{ body: 'x' }]);
    const onPull = await server.http.get(v1.path(pull, `/messages/${id}/subscribers`));
    expect(onPull.status).toBe(400);
    expect(onPull.body.msg).toMatch(/push queues only/);
    const push = uniqueQueue('status-push');
    await v1.update(push, { subscribers: [{ url: url('a') }] });
    const [pushed] = await v1.post(push, [{ body: 'y' }]);
    const statuses = await server.http.get(v1.path(push, `/messages/${pushed}/subscribers`));
    expect(statuses.status).toBe(200);
    expect(statuses.body.subscribers).toHaveLength(1);
    expect(statuses.body.subscribers[0]).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{24}$/), url: url('a') });
    const unknown = await server.http.delete(v1.path(push, `/messages/${pushed}/subscribers/abc`));
    expect(unknown.status).toBe(404);
    expect(unknown.body.msg).toMatch(/Subscriber not found/);
    expect((await server.http.get(v1.path(push, '/messages/123/subscribers'))).status).toBe(404);
  });

  it('a push queue without subscribers: made by push_type alone, its messages wait for the first one', async () => {
    const queue = uniqueQueue('no-subscribers');
    const made = await v1.update(queue, { push_type: 'multicast' });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ push_type: 'multicast', subscribers: [] });
    const emptied = await v1.update(uniqueQueue('empty-list'), { push_type: 'unicast', subscribers: [] });
    expect(emptied.body).toMatchObject({ push_type: 'unicast', subscribers: [] });
    expect((await v3.info(queue)).push.subscribers).toEqual([]);
    const subscriber = await TestSubscriber.start(() => 200);
    try {
      await v1.post(queue, [{ body: 'kept for the first subscriber' }]);
      expect((await server.http.get(v1.path(queue))).body.size).toBe(1);
      const added = await server.http.post(v1.path(queue, '/subscribers'), { subscribers: [{ url: subscriber.url }] });
      expect(added.status).toBe(200);
      // Adding the first subscriber announces the queue to the deliverer (no wait for its 10 s pass).
      await subscriber.waitFor(1, scaled(8000));
      expect(subscriber.received[0]?.body).toBe('kept for the first subscriber');
    } finally {
      await subscriber.stop();
    }
  });

  it('acknowledges a delivery answered 202 through the delete-subscriber endpoint', async ({ expect }) => {
    const subscriber = await TestSubscriber.start(() => 202);
    try {
      const queue = uniqueQueue('ack-v1');
      await v1.update(queue, { subscribers: [{ url: subscriber.url }] });
      const [id] = await v1.post(queue, [{ body: 'needs ack' }]);
      // Delivered within milliseconds on its wake-up; a lost wake-up is covered by the
      // deliverer's 10 s pass, so wait longer than that rather than fail on a loaded machine.
      await subscriber.waitFor(1, 15_000);
      const statusPath = v1.path(queue, `/messages/${id}/subscribers`);
      await expect
        .poll(async () => (await server.http.get(statusPath)).body.subscribers?.[0]?.status, { timeout: scaled(5000) })
        .toBe('reserved');
      const [status] = (await server.http.get(statusPath)).body.subscribers;
      const acked = await server.http.delete(v1.path(queue, `/messages/${id}/subscribers/${status.id}`));
      expect(acked.status).toBe(200);
      await expect
        .poll(async () => (await server.http.get(v1.path(queue))).body.size, { timeout: scaled(5000) })
        .toBe(0);
    } finally {
      await subscriber.stop();
    }
  });
});

describe('list', () => {
  it('page and per_page over names in order', async () => {
    const created = await server.http.post('/1/projects', { name: 'v1 lists', id: 'v1-list-project' });
    expect(created.status).toBeLessThan(300);
    const lister = new MqV1Client(server.http, 'v1-list-project');
    for (const name of ['c', 'a', 'e', 'b', 'd']) await lister.post(name, [{ body: 'x' }]);
    const all = await server.http.get('/1/projects/v1-list-project/queues');
    expect(all.body.map((queue: any) => queue.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(all.body[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      project_id: 'v1-list-project',
      name: 'a',
    });
    const second = await server.http.get('/1/projects/v1-list-project/queues?page=1&per_page=2');
    expect(second.body.map((queue: any) => queue.name)).toEqual(['c', 'd']);
    const beyond = await server.http.get('/1/projects/v1-list-project/queues?page=9&per_page=2');
    expect(beyond.body).toEqual([]);
    for (const query of ['?page=101', '?page=-1', '?per_page=0', '?page=x']) {
      const response = await server.http.get(`/1/projects/v1-list-project/queues${query}`);
      expect(response.status, query).toBe(400);
      expect(typeof response.body.msg).toBe('string');
    }
  });
});

describe.concurrent('bad update input', () => {
  const cases: Array<[string, unknown, number, RegExp]> = [
    ['unknown push_type', { push_type: 'broadcast' }, 400, /push_type must be one of: multicast, unicast, pull/],
    ['push_type not a string', { push_type: 3 }, 400, /push_type must be a string/],
    ['subscribers not a list', { subscribers: 'x' }, 400, /subscribers must be a list/],
    ['subscriber without url', { subscribers: [{}] }, 406, /subscribers\[0\]\.url is required/],
    [
      'subscriber url not http',
      { subscribers: [{ url: 'ftp://x' }] },
      400,
      /subscribers\[0\]\.url must be an http or https URL/,
    ],
    ['subscriber url not a URL', { subscribers: [{ url: 'nope' }] }, 400, /absolute URL/],
    ['same url twice', { subscribers: [{ url: url('a') }, { url: url('a') }] }, 400, /given twice/],
    ['retries over 100', { subscribers: [{ url: url('a') }], retries: 101 }, 400, /retries must be/],
    [
      'retries not an integer',
      { subscribers: [{ url: url('a') }], retries: 'many' },
      400,
      /retries must be an integer/,
    ],
    [
      'negative retries_delay',
      { subscribers: [{ url: url('a') }], retries_delay: -1 },
      400,
      /retries_delay must be at least 0/,
    ],
    [
      'subscribers with push_type pull',
      { push_type: 'pull', subscribers: [{ url: url('a') }] },
      400,
      /push queues only/,
    ],
    ['retries on a pull queue', { retries: 5 }, 400, /push queues only/],
  ];
  for (const [label, body, status, msg] of cases) {
    it(label, async () => {
      const response = await v1.update(uniqueQueue('bad'), body as Record<string, unknown>);
      expect(response.status).toBe(status);
      expect(response.body.msg).toMatch(msg);
    });
  }

  // Each class of bad input the update schema answers, with the exact generic field row.
  const schemaClasses: Array<[string, Record<string, unknown>, number, string]> = [
    ['wrong type', { retries_delay: '5' }, 400, 'retries_delay must be an integer'],
    ['missing required', { subscribers: [{ name: 'a' }] }, 406, 'subscribers[0].url is required'],
    ['out of range', { subscribers: [{ url: url('a') }], retries: 101 }, 400, 'retries must be between 0 and 100'],
    ['unknown shape', { subscribers: ['http://127.0.0.1:9/a'] }, 400, 'subscribers[0] must be an object'],
  ];
  for (const [label, body, status, msg] of schemaClasses) {
    it(`the schema answers ${label} with its field row`, async () => {
      const response = await v1.update(uniqueQueue('schema'), body);
      expect([response.status, response.body.msg]).toEqual([status, msg]);
    });
  }

  it('alerts: each class of bad input answered by the alert schema', async () => {
    const queue = uniqueQueue('alerts-schema');
    const path = `${v1.path(queue)}/alerts`;
    const answers = [
      [{ alerts: [{ type: 'fixed', trigger: 'x', queue: 'q' }] }, 400, 'alerts[0].trigger must be an integer'],
      [{ alerts: [{ type: 'fixed', trigger: 1 }] }, 406, 'alerts[0].queue is required'],
      [{ alerts: [{ type: 'fixed', trigger: 1, queue: 'q', snooze: -1 }] }, 400, 'alerts[0].snooze must be at least 0'],
      [{ alerts: { type: 'fixed' } }, 400, 'alerts must be a list'],
    ] as const;
    for (const [body, status, msg] of answers) {
      const response = await server.http.post(path, body);
      expect([response.status, response.body.msg]).toEqual([status, msg]);
    }
    const removal = await server.http.request('DELETE', path, { body: { alerts: [{ id: 5 }] } });
    expect([removal.status, removal.body.msg]).toEqual([400, 'alerts[0].id must be a string']);
  });

  it('subscribers over 64 KB as JSON', async () => {
    const subscribers = Array.from({ length: 700 }, (_, i) => ({ url: `http://127.0.0.1:9/${'x'.repeat(90)}${i}` }));
    const response = await v1.update(uniqueQueue('big'), { subscribers });
    expect(response.status).toBe(400);
    expect(response.body.msg).toMatch(/64 KB/);
  });

  it('a queue with alerts or a dead letter queue cannot become a push queue', async () => {
    const withAlerts = uniqueQueue('alerted');
    await v3.createQueue(withAlerts, { alerts: [{ type: 'fixed', trigger: 5, queue: 'elsewhere' }] });
    const refused = await v1.update(withAlerts, { subscribers: [{ url: url('a') }] });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toMatch(/alerts are not allowed on push queues/);
    const withDeadLetter = uniqueQueue('dead-lettered');
    await v3.createQueue(withDeadLetter, { dead_letter: { queue_name: 'dlq' } });
    expect((await v1.update(withDeadLetter, { subscribers: [{ url: url('a') }] })).status).toBe(400);
  });
});

describe('authentication', () => {
  it('v1 accepts ?oauth= and earlier-generation tokens; refuses missing or bad ones', async () => {
    const queue = uniqueQueue('auth');
    await v1.post(queue, [{ body: 'x' }]);
    const path = v1.path(queue);
    expect((await server.http.get(path, { token: null })).status).toBe(401);
    expect((await server.http.get(path, { token: 'nonsense' })).status).toBe(401);
    expect((await server.http.get(`${path}?oauth=${server.token}`, { token: null })).body.size).toBe(1);
    const v2 = await server.http.post('/1/tokens', { type: 'v2', name: 'old-v1' });
    const accepted = await server.http.get(path, { token: v2.body.token });
    expect(accepted.status).toBe(200);
    expect(
      (await server.http.get(`/3/projects/${server.projectId}/queues/${queue}`, { token: v2.body.token })).status,
    ).toBe(401);
  });

  it('unknown project: 404', async () => {
    const response = await server.http.get('/1/projects/no-such-project/queues');
    expect(response.status).toBe(404);
    expect(typeof response.body.msg).toBe('string');
  });
});
