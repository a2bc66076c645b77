import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import type { HttpResponse } from '../../helpers/http.js';
import { uniqueQueue, useMqClient } from '../../helpers/mq.js';
import { useMqV1Client } from '../../helpers/mq-v1.js';
import { useRedis, useTestServer } from '../../helpers/test-file.js';
import { WorkerClient } from '../../helpers/worker.js';
import { useWorkerClient } from '../../helpers/worker-test-file.js';
import { createUserWithToken } from '../../helpers/identity.js';

// Redis at `maxmemory` under noeviction (issue #43): writes answer 507 naming the cause, every
// removal still works (so space can be freed), a post stores all its messages or none, and the
// controller stays ready while Redis answers reads.
const MB = 1024 * 1024;
const FULL_MSG = /out of memory|full/i;
const BALLAST = 'ballast';
const bodyOf = (kib: number, mark: string) => mark.padEnd(kib * 1024, 'x');

const server = useTestServer({ FERRUM_METRICS_REDIS_PING_MS: '100' });
const admin = useRedis(server);
const mq = useMqClient(server);
const v1 = useMqV1Client(server);
const worker = useWorkerClient(server);

const usedMemory = async () => Number(/used_memory:(\d+)/.exec(String(await admin.call('INFO', 'memory')))![1]);

const setMaxMemory = (bytes: number) => admin.call('CONFIG', 'SET', 'maxmemory', String(bytes));

/** Posts ballast until Redis, given 3 MB more than it holds, refuses a write for memory (a bounded loop); returns that refusal. */
async function fill(): Promise<HttpResponse> {
  await setMaxMemory((await usedMemory()) + 3 * MB);
  for (let i = 0; i < 200; i++) {
    const messages = Array.from({ length: 8 }, (_, j) => ({ body: bodyOf(32, `b${i}.${j}`) }));
    const posted = await server.http.post(mq.path(BALLAST, '/messages'), { messages });
    if (posted.status === 507) return posted;
    expect(posted.status, posted.text).toBe(201);
  }
  throw new Error('Redis never filled');
}

/**
 * Redis full for sure: its `maxmemory` a little below what it holds (what a filled Redis holds
 * moves by the size of the commands in flight, so filling alone leaves it at the edge).
 */
async function full(): Promise<void> {
  await setMaxMemory((await usedMemory()) - 256 * 1024);
}

/** `request` answered while Redis is full (made so just before) with a 2xx; and what it answered. */
async function whileFull(request: () => Promise<HttpResponse>): Promise<HttpResponse> {
  await full();
  const response = await request();
  expect(response.status, response.text).toBeGreaterThanOrEqual(200);
  expect(response.status, response.text).toBeLessThan(300);
  return response;
}

function expectFullRefusal(response: HttpResponse): void {
  expect(response.status, response.text).toBe(507);
  expect(response.headers.get('retry-after')).toBeNull();
  expect(response.body.msg).toMatch(FULL_MSG);
}

beforeAll(async () => {
  await admin.call('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
});
afterAll(async () => {
  await admin.call('CONFIG', 'SET', 'maxmemory', '0').catch(() => undefined);
});

describe('writes while Redis is full', () => {
  it('answer 507 with a {"msg"} naming the cause, not the outage 503', async () => {
    expectFullRefusal(await fill());
    await full();
    const cache = `/1/projects/${server.projectId}/caches/c/items/k`;
    expectFullRefusal(await server.http.put(cache, { value: bodyOf(4, 'v') }));
  });

  it("answer the functions API's own body shape", async () => {
    await full();
    const created = await server.http.post('/v1/apps', { app: { name: 'full-app', project_id: server.projectId } });
    expect(created.status, created.text).toBe(507);
    expect(created.body.error.message).toMatch(FULL_MSG);
  });

  it('store all messages of a post or none', async () => {
    const queue = uniqueQueue('whole');
    await setMaxMemory(0);
    await mq.postBodies(queue, 'before');
    // Room for a chunk or two of the post (post-messages.lua runs per 256 KiB), not for all of it.
    await setMaxMemory((await usedMemory()) + MB / 2);
    const messages = Array.from({ length: 20 }, (_, i) => ({ body: bodyOf(60, `m${i}`) }));
    const refused = await server.http.post(mq.path(queue, '/messages'), { messages });
    expectFullRefusal(refused);
    expect((await mq.info(queue)).size).toBe(1);
  });

  it('an increment refused for memory is a 507, not "not an integer"', async () => {
    const counter = `/1/projects/${server.projectId}/caches/counters/items/n`;
    await setMaxMemory(0);
    expect((await server.http.put(counter, { value: 1 })).status).toBe(200);
    await full();
    expectFullRefusal(await server.http.post(`${counter}/increment`, { amount: 1 }));
    expect((await server.http.get(counter)).body.value).toBe(1);
  });
});

describe('batch writes while Redis is full', () => {
  it('a batch of tasks or of schedules is refused whole', async () => {
    await setMaxMemory(0);
    await worker.upload({ name: 'bulk', image: 'busybox', command: 'true' });
    const listed = async () => (await server.http.get(worker.path('/tasks?code_name=bulk'))).body.tasks.length;
    await full();
    const tasks = Array.from({ length: 3 }, (_, i) => ({ code_name: 'bulk', payload: bodyOf(8, `p${i}`) }));
    expectFullRefusal(await server.http.post(worker.path('/tasks'), { tasks }));
    expect(await listed()).toBe(0);
    const schedules = [1, 2].map((i) => ({ code_name: 'bulk', payload: `s${i}`, run_every: 3600 }));
    expectFullRefusal(await server.http.post(worker.path('/schedules'), { schedules }));
  });
});

describe('the controller while Redis is full', () => {
  it('stays ready: /ready answers 200 while Redis answers reads', async () => {
    await full();
    const ready = await server.http.get('/ready');
    expect(ready.status, ready.text).toBe(200);
    expect(ready.body.redis_full).toBe(true);
  });

  it('shows how full Redis is in gauges', async () => {
    await full();
    const [, max] = (await admin.call('CONFIG', 'GET', 'maxmemory')) as string[];
    const used = await eventually(
      async () => {
        const text = (await server.http.get('/metrics')).text;
        const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1]);
        return gauge('ferrum_redis_memory_max_bytes') === Number(max) && gauge('ferrum_redis_memory_used_bytes');
      },
      5000,
      "the memory gauges to show Redis's maxmemory",
    );
    expect(used).toBeGreaterThan(Number(max));
  });
});

describe('removals while Redis is full', () => {
  const queue = uniqueQueue('v3');
  const v1Queue = uniqueQueue('v1');
  let ids: string[];
  let reserved: any[];
  let v1Ids: string[];

  beforeAll(async () => {
    await setMaxMemory(0);
    ids = await mq.postBodies(queue, 'a', 'b', 'c', 'd', 'e', 'f');
    reserved = await mq.reserve(queue, { n: 4 });
    v1Ids = await v1.post(v1Queue, [{ body: 'one' }, { body: 'two' }]);
  });

  it('MQ v3: delete a message, batch delete, release, remove subscribers, clear, delete a queue', async () => {
    await whileFull(() => mq.delete(queue, reserved[0].id, reserved[0].reservation_id));
    await whileFull(() =>
      server.http.delete(mq.path(queue, '/messages'), {
        ids: reserved.slice(1, 3).map((m) => ({ id: m.id, reservation_id: m.reservation_id })),
      }),
    );
    await whileFull(() =>
      server.http.post(mq.path(queue, `/messages/${reserved[3].id}/release`), {
        reservation_id: reserved[3].reservation_id,
      }),
    );
    await whileFull(() => mq.delete(queue, ids[5]!));
    await setMaxMemory(0);
    const push = `${queue}-push`;
    const subscribers = ['s1', 's2'].map((name) => ({ name, url: `http://127.0.0.1:9/${name}` }));
    expect((await mq.createQueue(push, { type: 'multicast', push: { subscribers } })).status).toBe(200);
    await whileFull(() => server.http.delete(mq.path(push, '/subscribers'), { subscribers: [{ name: 's1' }] }));
    expect((await mq.info(push)).push.subscribers.map((s: { name: string }) => s.name)).toEqual(['s2']);
    await whileFull(() => server.http.delete(mq.path(push)));
    await whileFull(() => server.http.delete(mq.path(queue, '/messages'), {}));
    expect((await mq.info(queue)).size).toBe(0);
    await whileFull(() => server.http.delete(mq.path(queue)));
  });

  it('MQ v1: delete a message, clear, delete the queue', async () => {
    await whileFull(() => server.http.delete(v1.path(v1Queue, `/messages/${v1Ids[0]}`)));
    await whileFull(() => server.http.post(v1.path(v1Queue, '/clear')));
    expect(await v1.size(v1Queue)).toBe(0);
    await whileFull(() => server.http.delete(v1.path(v1Queue)));
  });

  it('frees the space of what it removes (a cleared queue leaves room to post)', async () => {
    await setMaxMemory(0);
    const before = await usedMemory();
    await server.http.post(mq.path(BALLAST, '/messages'), {
      messages: Array.from({ length: 8 }, (_, i) => ({ body: bodyOf(60, `big${i}`) })),
    });
    await setMaxMemory(before + 64 * 1024);
    expectFullRefusal(await server.http.post(mq.path(queue, '/messages'), { messages: [{ body: bodyOf(16, 'n') }] }));
    await whileFull(() => server.http.delete(mq.path(BALLAST, '/messages'), {}));
    // UNLINK frees big values in a background thread: soon, not at once.
    await eventually(async () => (await usedMemory()) < before + 64 * 1024, 5000, 'the cleared space to be freed');
    expect((await server.http.post(mq.path(queue, '/messages'), { messages: [{ body: 'fits' }] })).status).toBe(201);
  });

  it('cache: delete an item, clear a cache, delete a cache', async () => {
    await setMaxMemory(0);
    const cache = (name: string, rest = '') => `/1/projects/${server.projectId}/caches/${name}${rest}`;
    for (const name of ['c1', 'c2', 'c3'])
      expect((await server.http.put(cache(name, '/items/k'), { value: 'v' })).status).toBe(200);
    await whileFull(() => server.http.delete(cache('c1', '/items/k')));
    await whileFull(() => server.http.post(cache('c2', '/clear')));
    await whileFull(() => server.http.delete(cache('c3')));
    expect((await server.http.get(cache('c1', '/items/k'))).status).toBe(404);
  });

  it('worker: cancel a task, cancel a schedule, delete a code package', async () => {
    await setMaxMemory(0);
    await worker.upload({ name: 'job', image: 'busybox', command: 'true' });
    const codeId = await worker.upload({ name: 'gone', image: 'busybox', command: 'true' });
    const taskId = await worker.queue('job', 'p');
    const start = new Date(Date.now() + 3_600_000).toISOString();
    const schedules = await server.http.post(worker.path('/schedules'), {
      schedules: [{ code_name: 'job', payload: 'p', start_at: start, run_every: 3600 }],
    });
    expect(schedules.status, schedules.text).toBe(200);
    await whileFull(() => server.http.post(worker.path(`/tasks/${taskId}/cancel`)));
    expect((await worker.task(taskId)).status).toBe('cancelled');
    await whileFull(() => server.http.post(worker.path(`/schedules/${schedules.body.schedules[0].id}/cancel`)));
    await whileFull(() => server.http.delete(worker.path(`/codes/${codeId}`)));
  });

  it('functions: delete a route, delete an app', async () => {
    await setMaxMemory(0);
    const app = `fa-${Date.now()}`;
    expect((await server.http.post('/v1/apps', { app: { name: app, project_id: server.projectId } })).status).toBe(200);
    const route = await server.http.post(`/v1/apps/${app}/routes`, { route: { path: '/r1', image: 'busybox' } });
    expect(route.status, route.text).toBe(200);
    await whileFull(() => server.http.delete(`/v1/apps/${app}/routes/r1`));
    await whileFull(() => server.http.delete(`/v1/apps/${app}`));
  });

  it('identity: delete a token, a project, a user', async () => {
    await setMaxMemory(0);
    const user = await createUserWithToken(server.http, 'full');
    const project = await user.http.post('/1/projects', { name: 'doomed' });
    expect(project.status, project.text).toBe(201);
    const projectId = project.body.id ?? project.body._id;
    await new WorkerClient(user.http, projectId).upload({ name: 'theirs', image: 'busybox', command: 'true' });
    const token = await server.http.post('/1/tokens', { user_id: user.id, name: 'second' });
    await whileFull(() => server.http.delete(`/1/tokens/${token.body._id}`));
    await whileFull(() => user.http.delete(`/1/projects/${projectId}`));
    expect((await user.http.get(`/1/projects/${projectId}`)).status).toBe(404);
    await whileFull(() => server.http.delete(`/1/users/${user.id}`));
  });
});
