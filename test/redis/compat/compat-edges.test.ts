import { describe, expect, it } from 'vitest';
import { useRedis, useTestServer } from '../../helpers/test-file.js';
import { useMqClient, rawRequest, uniqueQueue } from '../../helpers/mq.js';
import { useMqV1Client } from '../../helpers/mq-v1.js';
import { useWorkerClient } from '../../helpers/worker-test-file.js';
import { WorkerClient } from '../../helpers/worker.js';
import { KeySpace } from '../../../src/core/redis.js';
import { WorkerKeys } from '../../../src/worker/keys.js';
import { TaskTokens } from '../../../src/worker/tasks/running/task-tokens.js';
import { cachePaths, uniqueCacheName } from '../../helpers/cache.js';
import { createProject, createUserWithToken } from '../../helpers/identity.js';
import { eventually } from '../../helpers/eventually.js';
import { useSubscribers } from '../../helpers/subscribers-of-file.js';
import { scaled } from '../../helpers/pace.js';

// Compatibility at the edges (issue 18), through real HTTP against a real server and Redis.
const server = useTestServer({ FERRUM_MQ_PUSH_TIMEOUT_MS: String(scaled(1000)) });
const redis = useRedis(server);
const mq = useMqClient(server);
const v1 = useMqV1Client(server);
const worker = useWorkerClient(server, { name: 'edge', image: 'ferrum-test/busybox', command: 'true' });
const startSubscriber = useSubscribers();
const project = () => createProject(server.http, 'edge');

describe('1. task tokens reach their own project only, while the task runs', () => {
  it('works on queues v1/v3, caches and tasks of the project; refused elsewhere; dead once revoked', async () => {
    const taskId = await worker.queue('edge', 'x', { delay: 3600 });
    const tokens = new TaskTokens(redis, new WorkerKeys(new KeySpace(server.config.keyPrefix)));
    const token = await tokens.issue({ project_id: server.projectId, task_id: taskId }, 60_000);
    const as = server.http.withToken(token);
    const queue = uniqueQueue('task-token');
    expect((await as.post(mq.path(queue, '/messages'), { messages: [{ body: 'hi' }] })).status).toBe(201);
    expect((await as.post(v1.path(queue, '/messages'), { messages: [{ body: 'v1' }] })).status).toBe(201);
    const cache = cachePaths(server.projectId, uniqueCacheName('task-token'));
    expect((await as.put(cache.item('k'), { value: 'v' })).status).toBe(200);
    expect((await as.get(cache.item('k'))).body.value).toBe('v');
    const queued = await as.post(worker.path('/tasks'), { tasks: [{ code_name: 'edge', payload: 'y', delay: 3600 }] });
    expect(queued.status).toBe(200);
    expect((await as.get(worker.path('/tasks'))).body.tasks.length).toBeGreaterThanOrEqual(2);
    expect((await as.get(worker.path(`/tasks/${queued.body.tasks[0].id}`))).status).toBe(200);

    const elsewhere = await project();
    const refused = await as.get(`/1/projects/${elsewhere}/caches`);
    expect(refused.status).toBe(403);
    expect((await as.post(`/3/projects/${elsewhere}/queues/q/messages`, { messages: [{ body: 'x' }] })).status).toBe(
      403,
    );
    for (const path of ['/1/users', '/1/tokens', `/1/projects/${server.projectId}`, '/2/clusters', '/v1/apps']) {
      expect((await as.get(path)).status, path).toBe(403);
    }
    await server.http.post(worker.path(`/tasks/${taskId}/cancel`));
    expect((await as.get(cache.item('k'))).status, 'the task ended').toBe(401);
    const again = await tokens.issue({ project_id: server.projectId, task_id: queued.body.tasks[0].id }, 60_000);
    await tokens.revoke(again);
    expect((await server.http.withToken(again).get(cache.item('k'))).status, 'revoked').toBe(401);
    await server.http.post(worker.path(`/tasks/${queued.body.tasks[0].id}/cancel`));
  });
});

describe('2. soft limits clients exceed are clamped; hard limits stay errors', () => {
  it(
    'reserve wait 60 is served as 30 seconds at most; n 500 as 100; v1 per_page 500 as 100',
    async () => {
      const queue = uniqueQueue('clamp');
      await mq.post(queue, [{ body: 'a', delay: 1 }]);
      const started = Date.now();
      const reserved = await mq.http.post(mq.path(queue, '/reservations'), { wait: 60 });
      expect(reserved.status).toBe(200);
      expect(reserved.body.messages.map((message: any) => message.body)).toEqual(['a']);
      expect(Date.now() - started).toBeLessThan(scaled(30_000));
      await mq.post(
        queue,
        Array.from({ length: 105 }, (_, i) => ({ body: `m${i}` })),
      );
      const many = await mq.http.post(mq.path(queue, '/reservations'), { n: 500 });
      expect(many.body.messages).toHaveLength(100);
      expect((await server.http.get(`/1/projects/${server.projectId}/queues?per_page=500`)).status).toBe(200);
      const hard = await mq.http.post(mq.path(queue, '/reservations'), { timeout: 86401 });
      expect(hard.status).toBe(400);
      expect(hard.body.msg).toMatch(/timeout/);
      expect((await mq.http.post(mq.path(queue, '/reservations'), { wait: -1 })).status).toBe(400);
    },
    scaled(40_000),
  );
});

describe('3. status codes clients check exactly', () => {
  it('cache increment and clear answer 200; posting messages and creating projects answer 201', async () => {
    const cache = cachePaths(server.projectId, uniqueCacheName('codes'));
    const incremented = await server.http.post(cache.increment('n'), { amount: 2 });
    expect(incremented.status).toBe(200);
    expect(incremented.body).toEqual({ msg: 'Added', value: 2 });
    expect((await server.http.post(cache.clear)).status).toBe(200);
    const posted = await server.http.post(mq.path(uniqueQueue('codes'), '/messages'), { messages: [{ body: 'x' }] });
    expect(posted.status).toBe(201);
    expect((await server.http.post('/1/projects', { name: 'codes' })).status).toBe(201);
  });
});

describe('4. 404 for what does not exist', () => {
  it('every GET and DELETE of an unknown named resource', async () => {
    const p = server.projectId;
    const none = '000000000000000000000000';
    const q = uniqueQueue('missing');
    const cases: [string, string][] = [
      ['GET', `/1/projects/${p}/caches/${uniqueCacheName('missing')}`],
      ['DELETE', `/1/projects/${p}/caches/${uniqueCacheName('missing')}`],
      ['GET', `/1/projects/${p}/caches/${uniqueCacheName('missing')}/items/k`],
      ['DELETE', `/1/projects/${p}/caches/${uniqueCacheName('missing')}/items/k`],
      ['GET', `/3/projects/${p}/queues/${q}`],
      ['DELETE', `/3/projects/${p}/queues/${q}`],
      ['GET', `/3/projects/${p}/queues/${q}/messages/1`],
      ['GET', `/1/projects/${p}/queues/${q}`],
      ['DELETE', `/1/projects/${p}/queues/${q}`],
      ['GET', `/2/projects/${p}/codes/${none}`],
      ['DELETE', `/2/projects/${p}/codes/${none}`],
      ['GET', `/2/projects/${p}/tasks/${none}`],
      ['GET', `/2/projects/${p}/tasks/${none}/log`],
      ['GET', `/2/projects/${p}/schedules/${none}`],
      ['GET', `/2/clusters/${none}`],
      ['DELETE', `/2/clusters/${none}`],
      ['GET', `/1/projects/${none}`],
      ['DELETE', `/1/projects/${none}`],
      ['GET', `/1/users/${none}`],
      ['DELETE', `/1/users/${none}`],
      ['DELETE', `/1/tokens/${none}`],
    ];
    for (const [method, path] of cases) {
      const response = method === 'GET' ? await server.http.get(path) : await server.http.delete(path, {});
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(typeof response.body.msg, `${method} ${path}`).toBe('string');
    }
    const cache = cachePaths(p, uniqueCacheName('exists'));
    await server.http.put(cache.item('k'), { value: 1 });
    expect((await server.http.get(cache.cache)).body).toMatchObject({ size: 1 });
    expect((await server.http.delete(cache.cache)).status).toBe(200);
    expect((await server.http.delete(cache.cache)).status).toBe(404);
  });
});

describe('5. field names and values as documented', () => {
  it('cluster list entries carry disk_space and the default cluster is listed', async () => {
    const created = await server.http.post('/2/clusters', { name: 'edge', disk: 5 * 1024 ** 3 });
    expect(created.status).toBe(200);
    const { clusters } = (await server.http.get('/2/clusters')).body;
    expect(clusters.find((cluster: any) => cluster.id === 'default')).toMatchObject({ name: 'default' });
    expect(clusters.find((cluster: any) => cluster.id === created.body.cluster.id)).toMatchObject({
      disk_space: 5 * 1024 ** 3,
    });
  });

  it('updating a cluster with autoscale.aws needs no provider field', async () => {
    const created = await server.http.post('/2/clusters', { name: 'to-aws' });
    const aws = { access_key_id: 'AKIDEXAMPLE', secret_access_key: 'secret', region: 'eu-west-1' };
    const updated = await server.http.put(`/2/clusters/${created.body.cluster.id}`, {
      autoscale: { aws, docker_auth: 'auth', docker_email: 'ops@example.com' },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.cluster.autoscale).toMatchObject({ provider: 'aws', aws: { region: 'eu-west-1' } });
  });

  it('schedules return delay (and task_delay)', async () => {
    const start_at = new Date(Date.now() + 3_600_000).toISOString();
    const created = await server.http.post(worker.path('/schedules'), {
      schedules: [{ code_name: 'edge', payload: 'p', start_at, delay: 45 }],
    });
    expect(created.status, created.text).toBe(200);
    const id = created.body.schedules[0].id;
    expect((await server.http.get(worker.path(`/schedules/${id}`))).body).toMatchObject({ delay: 45, task_delay: 45 });
    await server.http.post(worker.path(`/schedules/${id}/cancel`));
  });

  it("v1 get-messages' top-level timeout is the timeout applied", async () => {
    const queue = uniqueQueue('v1-timeout');
    await v1.post(queue, [{ body: 'own', timeout: 120 }]);
    const own = await v1.get(queue);
    expect(own.messages[0]).toMatchObject({ body: 'own', timeout: 120 });
    expect(own.timeout).toBe(120);
    await v1.post(queue, [{ body: 'asked' }]);
    expect((await v1.get(queue, '?timeout=300')).timeout).toBe(300);
  });
});

describe('6. project figures are real', () => {
  it('task_count, hourly_task_count and hourly_time follow queued tasks; schedules_count and max_schedules', async () => {
    const before = (await server.http.get(`/1/projects/${server.projectId}`)).body;
    const queued = await server.http.post(worker.path('/tasks'), {
      tasks: [1, 2, 3].map(() => ({ code_name: 'edge', payload: 'x', delay: 3600 })),
    });
    const after = (await server.http.get(`/1/projects/${server.projectId}`)).body;
    expect(after.task_count).toBe(before.task_count + 3);
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
    expect(new Date(after.hourly_time).toISOString()).toBe(hour);
    expect(after.hourly_task_count).toBeGreaterThanOrEqual(3);
    for (const task of queued.body.tasks) await server.http.post(worker.path(`/tasks/${task.id}/cancel`));

    const owner = await project();
    const admin = server.http;
    expect((await admin.patch(`/1/projects/${owner}`, { max_schedules: 2 })).body.max_schedules).toBe(2);
    const other = new WorkerClient(admin, owner);
    await other.upload({ name: 'edge', image: 'ferrum-test/busybox', command: 'true' });
    const start_at = new Date(Date.now() + 3_600_000).toISOString();
    const schedule = () =>
      admin.post(other.path('/schedules'), { schedules: [{ code_name: 'edge', payload: 'p', start_at }] });
    const first = await schedule();
    expect(first.status).toBe(200);
    expect((await schedule()).status).toBe(200);
    expect((await admin.get(`/1/projects/${owner}`)).body.schedules_count).toBe(2);
    const refused = await schedule();
    expect(refused.status).toBe(403);
    expect(refused.body.msg).toMatch(/at most 2 active schedules/);
    await admin.post(other.path(`/schedules/${first.body.schedules[0].id}/cancel`));
    expect((await admin.get(`/1/projects/${owner}`)).body.schedules_count).toBe(1);
    expect((await schedule()).status).toBe(200);
    const user = await createUserWithToken(admin, 'edge');
    expect((await user.http.patch(`/1/projects/${owner}`, { max_schedules: 500 })).status).toBe(403);
  });
});

describe('7. body limits as documented', () => {
  it('ordinary requests above 64 KB get 413; message posts, cache values and code uploads have their own', async () => {
    const big = 'x'.repeat(70 * 1024);
    const ordinary = await server.http.post('/1/projects', { name: big });
    expect(ordinary.status, ordinary.text).toBe(413);
    expect(ordinary.body.msg).toMatch(/too large/);
    expect(
      (await server.http.post(worker.path('/tasks'), { tasks: [{ code_name: 'edge', payload: big + big }] })).status,
    ).toBe(413);
    const queue = uniqueQueue('big');
    expect((await server.http.post(mq.path(queue, '/messages'), { messages: [{ body: big }] })).status).toBe(201);
    const cache = cachePaths(server.projectId, uniqueCacheName('big'));
    expect((await server.http.put(cache.item('k'), { value: big })).status).toBe(200);
    const payload = await server.http.post(worker.path('/tasks'), {
      tasks: [{ code_name: 'edge', payload: 'y'.repeat(64 * 1024), delay: 3600 }],
    });
    expect(payload.status, 'a payload of the full 64 KB').toBe(200);
    await server.http.post(worker.path(`/tasks/${payload.body.tasks[0].id}/cancel`));
  });
});

describe('8. clearing a v3 queue needs an explicit {}', () => {
  it('a body-less DELETE is 400 and clears nothing; {} clears', async () => {
    const queue = uniqueQueue('clear');
    await mq.postBodies(queue, 'a', 'b');
    const noBody = await server.http.delete(mq.path(queue, '/messages'));
    expect(noBody.status).toBe(400);
    expect(noBody.body.msg).toMatch(/\{\}/);
    const emptyJson = await server.http.delete(mq.path(queue, '/messages'), undefined, {
      headers: { 'Content-Type': 'application/json' },
    });
    expect(emptyJson.status).toBe(400);
    expect((await mq.info(queue)).size).toBe(2);
    const cleared = await rawRequest(server.url, 'DELETE', mq.path(queue, '/messages'), server.token, {});
    expect(cleared).toEqual({ status: 200, body: { msg: 'Cleared' } });
    expect((await mq.info(queue)).size).toBe(0);
  });
});

describe('9. push delivery headers name the message in the API of the queue', () => {
  it(
    'v1 push queues link to /1/..., v3 ones to /3/...',
    async () => {
      const subscriber = await startSubscriber(() => 200);
      const v1Queue = uniqueQueue('push-v1');
      const made = await server.http.post(v1.path(v1Queue), { subscribers: [{ url: subscriber.url }], retries: 0 });
      expect(made.status, made.text).toBe(200);
      const [v1Id] = await v1.post(v1Queue, [{ body: 'to v1' }]);
      const v3Queue = uniqueQueue('push-v3');
      const put = await server.http.put(mq.path(v3Queue), {
        queue: { type: 'multicast', push: { subscribers: [{ name: 's', url: subscriber.url }], retries: 0 } },
      });
      expect(put.status, put.text).toBe(200);
      const [v3Id] = await mq.postBodies(v3Queue, 'to v3');
      await subscriber.waitFor(2, 15_000);
      const byBody = (body: string) =>
        eventually(async () => subscriber.received.find((push) => push.body === body), 5000);
      const toV1 = await byBody('to v1');
      const toV3 = await byBody('to v3');
      const v1Url = `/1/projects/${server.projectId}/queues/${v1Queue}/messages/${v1Id}`;
      const v3Url = `/3/projects/${server.projectId}/queues/${v3Queue}/messages/${v3Id}`;
      expect(toV1.headers['service-subscriber-message-url']).toMatch(new RegExp(`${v1Url}$`));
      expect(toV1.headers['iron-subscriber-message-url']).toMatch(new RegExp(`${v1Url}$`));
      expect(toV3.headers['service-subscriber-message-url']).toMatch(new RegExp(`${v3Url}$`));
    },
    scaled(30_000),
  );
});

describe("PHP's [] for no parameters", () => {
  const send = (method: string, path: string, raw: string) =>
    server.http.request(method, path, { raw, headers: { 'Content-Type': 'application/json' } });

  it('reads as {} where the route takes an object: clear a queue, delete an item', async () => {
    const queue = uniqueQueue('php-clear');
    await mq.post(queue, [{ body: 'x' }]);
    const cleared = await send('DELETE', mq.path(queue, '/messages'), '[]');
    expect(cleared.status, cleared.text).toBe(200);
    expect((await server.http.get(mq.path(queue))).body.queue.size).toBe(0);
    const paths = cachePaths(server.projectId, uniqueCacheName('php'));
    await server.http.put(paths.item('k'), { value: 1 });
    expect((await send('DELETE', paths.item('k'), '[]')).status).toBe(200);
  });

  it('is still a list where a route takes a list, and a 400 where an object must hold fields', async () => {
    const refused = await send('POST', mq.path(uniqueQueue('php-post'), '/messages'), '[]');
    expect(refused.status).toBe(406);
    expect(refused.body.msg).toMatch(/messages/);
    const notObject = await send('PUT', cachePaths(server.projectId, 'c').item('k'), '[1]');
    expect(notObject.status).toBe(400);
    expect(notObject.body.msg).toBe('body must be an object');
  });
});
