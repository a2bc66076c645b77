import { describe, expect, it } from 'vitest';
import { KeySpace } from '../../../src/core/redis.js';
import { WorkerKeys } from '../../../src/worker/keys.js';
import { RegistryCredentials } from '../../../src/worker/codes/images/registry-credentials.js';
import { resolveSecretKey } from '../../../src/core/secret-key.js';
import { SecretBox } from '../../../src/core/secret-box.js';
import { useTestServer } from '../../helpers/test-file.js';
import { useWorkerClient } from '../../helpers/worker-test-file.js';
import { keysMatching } from '../../helpers/redis.js';
import { FAST_WORKER_ENV, createCluster, WorkerClient } from '../../helpers/worker.js';

// No runner here: tasks stay queued unless cancelled.
const server = useTestServer(FAST_WORKER_ENV);
const worker = useWorkerClient(
  server,
  { name: 'alpha', image: 'ferrum-test/busybox', default_priority: 1 },
  { name: 'beta', image: 'ferrum-test/busybox' },
);

describe('queueing tasks', () => {
  it('queues a batch and reads each task back', async () => {
    const response = await server.http.post(worker.path('/tasks'), {
      tasks: [
        { code_name: 'alpha', payload: '{"n":1}' },
        { code_name: 'beta', payload: 'two', priority: 2, cluster: 'default', timeout: 60, delay: 0, label: 'lbl' },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body.msg).toBe('Queued up');
    expect(response.body.tasks).toHaveLength(2);
    const [first, second] = await Promise.all(response.body.tasks.map((task: any) => worker.task(task.id)));
    expect(first).toMatchObject({
      code_name: 'alpha',
      payload: '{"n":1}',
      status: 'queued',
      priority: 1,
      timeout: 3600,
      delay: 0,
      cluster: 'default',
      code_rev: '1',
      log_size: 0,
    });
    expect(second).toMatchObject({
      code_name: 'beta',
      payload: 'two',
      priority: 2,
      timeout: 60,
      label: 'lbl',
      project_id: server.projectId,
    });
    expect(typeof second.code_id).toBe('string');
    expect(second.start_time).toBeUndefined();
    expect(await worker.log(second.id)).toBe('');
  });

  it('queues from a webhook with the raw body as payload', async () => {
    const body = '{ "kept":   "as sent" }';
    const response = await server.http.postRaw(
      worker.path('/tasks/webhook?code_name=beta&priority=2&timeout=30'),
      body,
      'application/json',
    );
    expect(response.status).toBe(200);
    expect(response.body.msg).toBe('Queued up');
    const task = await worker.task(response.body.id);
    expect(task).toMatchObject({ payload: body, priority: 2, timeout: 30, code_name: 'beta' });

    const plain = await server.http.postRaw(worker.path('/tasks/webhook?code_name=beta'), 'plain text', 'text/plain');
    expect((await worker.task(plain.body.id)).payload).toBe('plain text');
  });

  it('retries a finished task as a new linked task', async () => {
    const id = await worker.queue('alpha', 'again');
    await server.http.post(worker.path(`/tasks/${id}/cancel`));
    const response = await server.http.post(worker.path(`/tasks/${id}/retry`), { delay: 5 });
    expect(response.status).toBe(200);
    const retried = await worker.task(response.body.tasks[0].id);
    expect(retried).toMatchObject({
      payload: 'again',
      delay: 5,
      status: 'queued',
      original_task_id: id,
      retry_count: '1',
    });
    const noType = await server.http.postRaw(worker.path(`/tasks/${id}/retry`), '{}', 'text/plain');
    expect(noType.status).toBe(406);
  });

  describe('refuses bad input', () => {
    /** A batch of one task of code alpha, with `fields` over an empty payload. */
    const oneTask = (fields: Record<string, unknown>) => ({ tasks: [{ code_name: 'alpha', payload: '', ...fields }] });
    const cases: [string, unknown, number, string][] = [
      ['no tasks', {}, 406, 'tasks is required'],
      ['an empty list', { tasks: [] }, 400, 'tasks'],
      ['a missing code_name', { tasks: [{ payload: 'x' }] }, 406, 'tasks[0].code_name is required'],
      ['a missing payload', { tasks: [{ code_name: 'alpha' }] }, 406, 'tasks[0].payload is required'],
      ['a payload that is not a string', oneTask({ payload: { a: 1 } }), 400, 'tasks[0].payload must be a string'],
      [
        'an unknown code',
        {
          tasks: [
            { code_name: 'alpha', payload: '' },
            { code_name: 'ghost', payload: '' },
          ],
        },
        404,
        'Code package not found: ghost',
      ],
      ['a payload over 64 KB', oneTask({ payload: 'x'.repeat(65537) }), 400, 'payload must be at most 65536 bytes'],
      ['a timeout over 3600', oneTask({ timeout: 3601 }), 400, 'tasks[0].timeout must be between 1 and 3600'],
      ['a timeout of 0', oneTask({ timeout: 0 }), 400, 'tasks[0].timeout must be between 1 and 3600'],
      ['a delay over a week', oneTask({ delay: 604801 }), 400, 'tasks[0].delay must be between 0 and 604800'],
      ['priority 3', oneTask({ priority: 3 }), 400, 'tasks[0].priority must be between 0 and 2'],
      ['a bad cluster name', oneTask({ cluster: 'a b' }), 400, 'tasks[0].cluster must match'],
      // Read together, answered in order: the cluster, then the payloads, then the codes.
      [
        'a cluster not the owner’s, beside an unknown code and a payload over 64 KB',
        {
          tasks: [
            { code_name: 'ghost', payload: 'x'.repeat(65537) },
            { code_name: 'alpha', payload: '', cluster: 'nowhere' },
          ],
        },
        400,
        'cluster "nowhere" is neither "default" nor a cluster',
      ],
      [
        'a payload over 64 KB beside an unknown code',
        {
          tasks: [
            { code_name: 'ghost', payload: '' },
            { code_name: 'alpha', payload: 'x'.repeat(65537) },
          ],
        },
        400,
        'payload must be at most 65536 bytes',
      ],
    ];
    for (const [what, body, status, msg] of cases) {
      it(what, async () => {
        const response = await server.http.post(worker.path('/tasks'), body);
        expect(response.status).toBe(status);
        expect(response.body.msg).toContain(msg);
      });
    }

    it('nothing of a batch is queued when one task is bad', async () => {
      const before = (await server.http.get(worker.path('/tasks?per_page=100'))).body.tasks.length;
      await server.http.post(worker.path('/tasks'), {
        tasks: [
          { code_name: 'alpha', payload: '' },
          { code_name: 'ghost', payload: '' },
        ],
      });
      expect((await server.http.get(worker.path('/tasks?per_page=100'))).body.tasks.length).toBe(before);
    });

    it('a missing Content-Type: application/json', async () => {
      const body = JSON.stringify({ tasks: [{ code_name: 'alpha', payload: '' }] });
      const response = await server.http.post(worker.path('/tasks'), undefined, { raw: body });
      expect(response.status).toBe(406);
      expect(response.body.msg).toContain('Content-Type: application/json');
    });

    it('unparsable JSON', async () => {
      const response = await server.http.postRaw(worker.path('/tasks'), '{"tasks": [', 'application/json');
      expect(response.status).toBe(400);
    });

    it('a webhook without code_name, or for an unknown code, or with a big body', async () => {
      expect((await server.http.post(worker.path('/tasks/webhook'), undefined, { raw: 'x' })).status).toBe(406);
      const unknown = await server.http.post(worker.path('/tasks/webhook?code_name=ghost'), undefined, { raw: 'x' });
      expect(unknown.status).toBe(404);
      const big = await server.http.post(worker.path('/tasks/webhook?code_name=beta'), undefined, {
        raw: 'x'.repeat(65537),
      });
      expect(big.status).toBe(400);
      expect(big.body.msg).toContain('payload must be at most 65536 bytes');
    });

    it('unknown tasks', async () => {
      expect((await server.http.get(worker.path('/tasks/000000000000000000000000'))).status).toBe(404);
      expect((await server.http.get(worker.path('/tasks/000000000000000000000000/log'))).status).toBe(404);
      expect((await server.http.post(worker.path('/tasks/000000000000000000000000/cancel'))).status).toBe(404);
    });

    it('bad list queries', async () => {
      expect((await server.http.get(worker.path('/tasks?per_page=101'))).status).toBe(400);
      expect((await server.http.get(worker.path('/tasks?page=-1'))).status).toBe(400);
      expect((await server.http.get(worker.path('/tasks?queued=yes'))).status).toBe(400);
      expect((await server.http.get(worker.path('/tasks?from_time=20&to_time=10'))).status).toBe(400);
    });
  });
});

describe('listing tasks', () => {
  it('filters by code, status, cluster and time, newest first, with paging', async () => {
    const project = (await server.http.post('/1/projects', { name: 'task-list' })).body.id;
    const other = new WorkerClient(server.http, project);
    await other.upload({ name: 'one', image: 'ferrum-test/busybox' });
    await other.upload({ name: 'two', image: 'ferrum-test/busybox' });
    const ones: string[] = [];
    for (let i = 0; i < 5; i++) ones.push(await other.queue('one', `p${i}`, { delay: 600 }));
    const edge = await createCluster(server.http, 'edge');
    const twoA = await other.queue('two', 'a', { cluster: edge, delay: 600 });
    const twoB = await other.queue('two', 'b', { delay: 600 });
    await server.http.post(other.path(`/tasks/${ones[1]}/cancel`));
    await server.http.post(other.path(`/tasks/${twoB}/cancel`));
    const ids = async (query: string) =>
      (await server.http.get(other.path(`/tasks${query}`))).body.tasks.map((task: any) => task.id);

    expect(await ids('')).toEqual([twoB, twoA, ...[...ones].reverse()]);
    expect(await ids('?code_name=one')).toEqual([...ones].reverse());
    expect(await ids('?code_name=one&per_page=2&page=1')).toEqual([ones[2], ones[1]]);
    expect(await ids('?cancelled=1')).toEqual([twoB, ones[1]]);
    expect(await ids('?cancelled=1&code_name=two')).toEqual([twoB]);
    expect(await ids('?queued=1&cancelled=1&per_page=3')).toEqual([twoB, twoA, ones[4]]);
    expect(await ids('?queued=1&code_name=one')).toEqual([ones[4], ones[3], ones[2], ones[0]]);
    expect(await ids(`?cluster=${edge}`)).toEqual([twoA]);
    expect(await ids('?running=1')).toEqual([]);
    const now = Math.floor(Date.now() / 1000);
    expect((await ids(`?from_time=${now - 60}&to_time=${now + 60}`)).length).toBe(7);
    expect(await ids(`?from_time=${now + 60}`)).toEqual([]);
    expect(await ids(`?to_time=${now - 60}`)).toEqual([]);
  });
});

describe('registry credentials', () => {
  const auth = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

  it('stores them encrypted and never returns them', async () => {
    const response = await server.http.post(worker.path('/credentials'), {
      auth: auth({
        username: 'bob',
        password: 'very-secret-pw',
        email: 'b@x.io',
        serveraddress: 'https://registry.example.com/v2/',
      }),
    });
    expect(response.status).toBe(200);
    expect(JSON.stringify(response.body)).not.toContain('very-secret-pw');
    const redis = server.openRedis();
    const keys = await keysMatching(redis, '*registry-auth*');
    expect(keys).toHaveLength(1);
    const stored = await redis.hgetall(keys[0]!);
    await redis.quit();
    expect(Object.keys(stored)).toEqual(['registry.example.com']);
    expect(JSON.stringify(stored)).not.toContain('very-secret-pw');
    expect(Buffer.from(Object.values(stored)[0]!, 'base64').toString('latin1')).not.toContain('bob');
  });

  it('gives a runner the credentials of the registry an image comes from', async () => {
    const redis = server.openRedis();
    const credentials = new RegistryCredentials(
      redis,
      new WorkerKeys(new KeySpace(server.config.keyPrefix)),
      new SecretBox(() => resolveSecretKey(server.config)),
    );
    try {
      expect(await credentials.forImage(server.projectId, 'registry.example.com/team/app:1')).toMatchObject({
        username: 'bob',
        password: 'very-secret-pw',
      });
      expect(await credentials.forImage(server.projectId, 'team/app')).toBeUndefined();
    } finally {
      await redis.quit();
    }
  });

  it('refuses bad auth fields', async () => {
    expect((await server.http.post(worker.path('/credentials'), {})).status).toBe(406);
    const notBase64Json = await server.http.post(worker.path('/credentials'), { auth: 'bm90IGpzb24=' });
    expect(notBase64Json.status).toBe(400);
    const noPassword = await server.http.post(worker.path('/credentials'), { auth: auth({ username: 'bob' }) });
    expect(noPassword.status).toBe(406);
    expect(noPassword.body.msg).toBe('auth.password is required');
    expect((await server.http.post(worker.path('/credentials'), { auth: 5 })).status).toBe(400);
  });
});

describe('project usage counters', () => {
  it('counts queued tasks in the project record the identity service shows', async () => {
    const before = (await server.http.get(`/1/projects/${server.projectId}`)).body.task_count;
    await server.http.post(worker.path('/tasks'), {
      tasks: [1, 2, 3].map((n) => ({ code_name: 'beta', payload: String(n), delay: 600 })),
    });
    const after = (await server.http.get(`/1/projects/${server.projectId}`)).body.task_count;
    expect(after - before).toBe(3);
  });
});
