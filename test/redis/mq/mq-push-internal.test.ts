import { describe, expect, it } from 'vitest';
import { pushQueueSettings, useMqClient, settledPushStatuses, uniqueQueue } from '../../helpers/mq.js';
import { useMqV1Client } from '../../helpers/mq-v1.js';
import { useBeforeAll, useTestServer } from '../../helpers/test-file.js';
import { CLIENT_HEADERS } from '../../helpers/client-headers.js';
import { eventually } from '../../helpers/eventually.js';
import { WorkerClient } from '../../helpers/worker.js';

// The platform's own push subscribers: ironmq:///<queue> posts to a queue of the same project,
// ironworker:///<code> queues a task of that code with the message body as payload.
const CODE = 'hello';
const server = useTestServer();
const mq = useMqClient(server);
const v1 = useMqV1Client(server);
const worker = useBeforeAll(async () => {
  const client = new WorkerClient(server.http, server.projectId);
  await client.upload({ name: CODE, image: 'ferrum-test/busybox', command: 'true' });
  return client;
});

const settled = (queue: string, id: string, expected: Record<string, string>) =>
  settledPushStatuses(mq, queue, id, expected, 15_000);

async function tasksOf(codeName: string): Promise<any[]> {
  const response = await server.http.get(`/2/projects/${server.projectId}/tasks?code_name=${codeName}`);
  expect(response.status, response.text).toBe(200);
  return response.body.tasks;
}

async function messagesOn(queue: string): Promise<any[]> {
  return eventually(async () => {
    const found = await mq.peek(queue).catch(() => []);
    return found.length > 0 ? found : undefined;
  }, 15_000);
}

describe('delivery', () => {
  it('v3: ironmq:/// posts the body to the queue and ironworker:/// queues a task with it as payload', async () => {
    const receiver = uniqueQueue('receiver');
    const publisher = uniqueQueue('publisher');
    const created = await mq.createQueue(
      publisher,
      pushQueueSettings([
        { name: 'to-queue', url: `ironmq:///${receiver}` },
        { name: 'to-worker', url: `ironworker:///${CODE}` },
      ]),
    );
    expect(created.status, created.text).toBe(200);
    const tasksBefore = (await tasksOf(CODE)).length;
    // Passed on as the bytes stored: multi-byte characters, '/' and DEL arrive as posted.
    const body = `Hello IronMQ pusher! é ☃ 😀 / \u007f ${Date.now()}`;
    const [id] = await mq.postBodies(publisher, body);
    const list = await settled(publisher, id!, { 'to-queue': 'deleted', 'to-worker': 'deleted' });
    expect(list.map((entry) => entry.status_code)).toEqual([200, 200]);
    expect((await messagesOn(receiver)).map((message) => message.body)).toEqual([body]);
    const tasks = await tasksOf(CODE);
    expect(tasks).toHaveLength(tasksBefore + 1);
    const task = tasks.find((each) => each.payload === body) ?? (await worker.task(tasks[0].id));
    expect(task.payload).toBe(body);
    expect(task.code_name).toBe(CODE);
    expect((await mq.info(publisher)).size).toBe(0);
  });

  it('v1: subscribers given as the Ruby client gives them ({"subscribers": [{"url"}]}) deliver the same way', async () => {
    const receiver = uniqueQueue('v1-receiver');
    const publisher = uniqueQueue('v1-publisher');
    const updated = await server.http.request('POST', v1.path(publisher), {
      raw: JSON.stringify({ subscribers: [{ url: `ironmq:///${receiver}` }] }),
      headers: CLIENT_HEADERS.ruby,
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.subscribers).toEqual([expect.objectContaining({ url: `ironmq:///${receiver}` })]);
    await v1.post(publisher, [{ body: 'from v1' }]);
    expect((await messagesOn(receiver)).map((message) => message.body)).toEqual(['from v1']);
  });

  it('a queue that does not exist yet is created by the first delivery, as by a post', async () => {
    const receiver = uniqueQueue('created-by-push');
    const publisher = uniqueQueue('creating');
    await mq.createQueue(publisher, pushQueueSettings([{ name: 'q', url: `ironmq:///${receiver}` }], {}, 'unicast'));
    expect((await mq.http.get(mq.path(receiver))).status).toBe(404);
    await mq.postBodies(publisher, 'first');
    expect((await messagesOn(receiver)).map((message) => message.body)).toEqual(['first']);
  });

  it('an unknown code is retried like a failing HTTP subscriber, then reported to the error queue', async () => {
    const publisher = uniqueQueue('no-code');
    const errors = uniqueQueue('no-code-errors');
    const missing = [{ name: 'missing', url: 'ironworker:///no-such-code' }];
    const created = await mq.createQueue(
      publisher,
      pushQueueSettings(missing, { retries: 1, retries_delay: 0, error_queue: errors }),
    );
    expect(created.status, created.text).toBe(200);
    const [id] = await mq.postBodies(publisher, 'for nobody');
    const [status] = await settled(publisher, id!, { missing: 'error' });
    expect(status).toMatchObject({
      tries: 2,
      retries_remaining: 0,
      status_code: 404,
      url: 'ironworker:///no-such-code',
    });
    expect(status.error_message).toMatch(/no-such-code/);
    const [report] = await messagesOn(errors);
    expect(JSON.parse(report.body)).toMatchObject({
      source_msg_id: id,
      source_queue: publisher,
      body: 'for nobody',
      subscribers: [{ name: 'missing', status: 'error', status_code: 404 }],
    });
  });

  it('names are %-decoded: ironmq:///with%20space reaches the queue "with space"', async () => {
    const receiver = `with space ${Date.now()}`;
    const publisher = uniqueQueue('encoded');
    await mq.createQueue(
      publisher,
      pushQueueSettings([{ name: 's', url: `ironmq:///${encodeURIComponent(receiver)}` }]),
    );
    await mq.postBodies(publisher, 'spaced');
    expect((await messagesOn(receiver)).map((message) => message.body)).toEqual(['spaced']);
  });
});

describe('bad subscriber URLs are refused when the subscriber is created', () => {
  const cases: Array<[string, RegExp]> = [
    ['ironmq://ABCDEFG@/somerandomqueue', /reach this project only; write ironmq:\/\/\/<queue name>/],
    ['ironmq://mq.example.com/queue', /reach this project only/],
    ['ironworker://other-project/code', /reach this project only; write ironworker:\/\/\/<code name>/],
    ['ironmq:/queue', /must be written ironmq:\/\/\/<queue name> \(three slashes/],
    ['ironmq:///queue?x=1', /three slashes, no query or fragment/],
    ['ironmq:///a/b', /queue name must not contain '\/'/],
    ['ironmq:///', /queue name must not be empty/],
    ['ironworker:///', /code name must not be empty/],
    [`ironworker:///${'c'.repeat(256)}`, /code name must be at most 255 characters/],
    [`ironmq:///${'q'.repeat(256)}`, /queue name must be at most 255 bytes/],
    ['ironmq:///bad%ZZ', /malformed %-escape/],
    ['ftp://example.com/x', /must be an http or https URL, or ironmq:\/\/\/<queue> or ironworker:\/\/\/<code>/],
  ];
  for (const [url, msg] of cases) {
    it(`v3 create: ${url.slice(0, 40)}`, async () => {
      const response = await mq.createQueue(uniqueQueue('bad-url'), pushQueueSettings([{ name: 's', url }]));
      expect(response.status).toBe(400);
      expect(response.body.msg).toMatch(/^queue\.push\.subscribers\[0\]\.url/);
      expect(response.body.msg).toMatch(msg);
    });
  }

  it('v3 add subscribers and v1 update refuse them too', async () => {
    const queue = uniqueQueue('bad-url-later');
    await mq.createQueue(queue, pushQueueSettings([{ name: 'ok', url: 'ironmq:///elsewhere' }]));
    const added = await server.http.post(mq.path(queue, '/subscribers'), {
      subscribers: [{ name: 'bad', url: 'ironmq://token@/q' }],
    });
    expect(added.status).toBe(400);
    expect(added.body.msg).toMatch(/^subscribers\[0\]\.url: ironmq subscribers reach this project only/);
    const v1Update = await v1.update(uniqueQueue('v1-bad-url'), { subscribers: [{ url: 'ironworker://x@/code' }] });
    expect(v1Update.status).toBe(400);
    expect(v1Update.body.msg).toMatch(/^subscribers\[0\]\.url: ironworker subscribers reach this project only/);
  });

  it('a queue cannot push to itself: v3 create, v3 add and replace, v1 update', async () => {
    const queue = uniqueQueue('self');
    const self = `ironmq:///${queue}`;
    const created = await mq.createQueue(queue, pushQueueSettings([{ name: 's', url: self }]));
    expect(created.status).toBe(400);
    expect(created.body.msg).toBe(`a queue cannot push to itself: ${self} is this queue`);
    expect((await mq.http.get(mq.path(queue))).status).toBe(404);

    await mq.createQueue(queue, pushQueueSettings([{ name: 'ok', url: 'ironmq:///other' }]));
    for (const method of ['POST', 'PUT'] as const) {
      const response = await server.http.request(method, mq.path(queue, '/subscribers'), {
        body: { subscribers: [{ name: 'loop', url: self }] },
      });
      expect(response.status).toBe(400);
      expect(response.body.msg).toMatch(/cannot push to itself/);
    }
    expect((await mq.info(queue)).push.subscribers).toEqual([{ name: 'ok', url: 'ironmq:///other' }]);

    const v1Queue = uniqueQueue('v1-self');
    const v1Self = await v1.update(v1Queue, { subscribers: [{ url: `ironmq:///${v1Queue}` }] });
    expect(v1Self.status).toBe(400);
    expect(v1Self.body.msg).toMatch(/cannot push to itself/);
  });
});

describe('push loops through other queues', () => {
  const pushTo = (target: string) => pushQueueSettings([{ name: `to-${target}`, url: `ironmq:///${target}` }]);

  it('a subscriber that would lead back through other queues is refused, naming the path', async () => {
    const [a, b, c] = [uniqueQueue('loop-a'), uniqueQueue('loop-b'), uniqueQueue('loop-c')];
    expect((await mq.createQueue(a, pushTo(b))).status).toBe(200);
    expect((await mq.createQueue(b, pushTo(c))).status).toBe(200);
    const closing = await mq.createQueue(c, pushTo(a));
    expect(closing.status).toBe(400);
    expect(closing.body.msg).toBe(`push subscribers would loop back to this queue: ${c} → ${a} → ${b} → ${c}`);
    expect((await mq.http.get(mq.path(c))).status).toBe(404);

    expect((await mq.createQueue(c, pushTo(uniqueQueue('sink')))).status).toBe(200);
    const added = await server.http.post(mq.path(c, '/subscribers'), {
      subscribers: [{ name: 'back', url: `ironmq:///${a}` }],
    });
    expect(added.status).toBe(400);
    expect(added.body.msg).toMatch(/would loop back to this queue/);
    const v1Loop = await v1.update(c, { subscribers: [{ url: `ironmq:///${b}` }] });
    expect(v1Loop.status).toBe(400);
    expect(v1Loop.body.msg).toBe(`push subscribers would loop back to this queue: ${c} → ${b} → ${c}`);
  });

  it('chains without a loop, and pushes to pull queues, are fine', async () => {
    const [a, b, sink] = [uniqueQueue('chain-a'), uniqueQueue('chain-b'), uniqueQueue('chain-sink')];
    expect((await mq.createQueue(b, pushTo(sink))).status).toBe(200);
    expect((await mq.createQueue(a, pushTo(b))).status).toBe(200);
    await mq.postBodies(a, 'along the chain');
    expect((await messagesOn(sink)).map((message) => message.body)).toEqual(['along the chain']);
  });
});

describe('subscribers where earlier clients put them', () => {
  // The Ruby client's Queue#update sends PUT {"queue": {"subscribers": [...]}}.
  it('PUT and PATCH with queue.subscribers: 400 naming queue.push.subscribers; nothing changes', async () => {
    const queue = uniqueQueue('legacy');
    const subscribers = [{ url: 'ironmq:///receiver' }, { url: `ironworker:///${CODE}` }];
    for (const method of ['PUT', 'PATCH'] as const) {
      const response = await server.http.request(method, mq.path(queue), {
        raw: JSON.stringify({ queue: { subscribers } }),
        headers: CLIENT_HEADERS.ruby,
      });
      expect(response.status, method).toBe(400);
      expect(response.body.msg).toMatch(
        /^queue\.subscribers is not read here: push subscribers go in queue\.push\.subscribers/,
      );
    }
    expect((await mq.http.get(mq.path(queue))).status).toBe(404);
  });

  it('subscribers beside queue (the version 1 shape sent to version 3): 400 too', async () => {
    const queue = uniqueQueue('legacy-top');
    await mq.createQueue(queue);
    const response = await server.http.request('PATCH', mq.path(queue), {
      raw: JSON.stringify({ subscribers: [{ url: 'http://example.com/push' }], queue: {} }),
      headers: CLIENT_HEADERS.python,
    });
    expect(response.status).toBe(400);
    expect(response.body.msg).toMatch(/^subscribers is not read here: .*queue\.push\.subscribers/);
    expect((await mq.info(queue)).type).toBe('pull');
  });

  it('queue.push.subscribers, and a null subscribers beside it, are accepted', async () => {
    const queue = uniqueQueue('modern');
    const response = await server.http.put(mq.path(queue), {
      subscribers: null,
      queue: { type: 'multicast', push: { subscribers: [{ name: 'q', url: 'ironmq:///elsewhere' }] } },
    });
    expect(response.status, response.text).toBe(200);
  });
});
