import { Queue } from 'bullmq';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { queueNameOf } from '../../../src/worker/tasks/queues/distribution.js';
import { eventually } from '../../helpers/eventually.js';
import type { HttpResponse } from '../../helpers/http.js';
import { useTestServer } from '../../helpers/test-file.js';
import { useWorkerClient } from '../../helpers/worker-test-file.js';
import { createCluster, createRunnerToken, FAST_WORKER_ENV, runnerApiCall } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';

// The runner API and cluster runner tokens, without Docker: the test plays the runner.

const server = useTestServer(FAST_WORKER_ENV);
const worker = useWorkerClient(server, { name: 'shell', image: 'ferrum-test/busybox', command: 'sh' });
let clusterA: string;
let clusterB: string;

beforeAll(async () => {
  clusterA = await createCluster(server.http, 'runner-api-a');
  clusterB = await createCluster(server.http, 'runner-api-b');
});

/** Calls the runner API with a runner token (Bearer), as a gateway runner does. */
const runnerCall = (token: string) => runnerApiCall(server, token);

const heartbeat = (tasks: string[] = []) => ({ slots: 2, busy: tasks.length, heartbeat_ms: 1000, tasks });

/** Registers `instance` of `cluster` and takes the next task of its queue for it. */
async function holdTask(token: string, cluster: string, instance: string): Promise<string> {
  const call = runnerCall(token);
  const base = `/runner/v1/clusters/${cluster}/instances/${instance}`;
  expect((await call('POST', `${base}/heartbeat`, { body: heartbeat() })).status).toBe(200);
  const taskId = await worker.queue('shell', 'echo', { cluster });
  const next = await call('POST', `${base}/tasks/next?wait_ms=10000`);
  expect(next.status).toBe(200);
  expect(next.body.task.id).toBe(taskId);
  // Taken (preparing on the runner), it reads as queued until its container starts (api/worker-v2/views.ts).
  expect(await worker.task(taskId)).toMatchObject({ status: 'queued', runner_id: instance });
  return taskId;
}

/** `next` (a tasks/next answer) hands `taskId` to `instance` again, the same task (no retry made), queued until it starts. */
async function expectTakenAgainUnretried(next: HttpResponse, taskId: string, instance: string): Promise<void> {
  expect(next.status).toBe(200);
  expect(next.body.task.id).toBe(taskId);
  const task = await worker.task(taskId);
  expect(task).toMatchObject({ status: 'queued', runner_id: instance });
  expect(task.retry_task_id).toBeUndefined();
}

/**
 * Beats at `heartbeatPath` (listing no task) until the held `taskId` goes back to the queue: a
 * held task reads as queued too, so its going back shows as a change of the record.
 */
async function beatUntilQueuedAgain(call: ReturnType<typeof runnerCall>, heartbeatPath: string, taskId: string) {
  const held = await worker.task(taskId);
  await eventually(
    async () => {
      await call('POST', heartbeatPath, { body: heartbeat() });
      return (await worker.task(taskId)).updated_at !== held.updated_at;
    },
    20_000,
    'the task queued again',
  );
}

/** heldTask on a cluster made for the test (`name`). */
async function heldOnClusterOfItsOwn(name: string, instance: string) {
  return heldTask(await createCluster(server.http, name), instance);
}

/**
 * A task of `cluster` held by its runner `instance`, which calls the runner API (`call`) with a
 * new token of the cluster; `base` is the path of one of its runners, `task` the held task's.
 */
async function heldTask(cluster: string, instance: string) {
  const { token } = await createRunnerToken(server, cluster);
  const taskId = await holdTask(token, cluster, instance);
  const base = (runner: string) => `/runner/v1/clusters/${cluster}/instances/${runner}`;
  return { taskId, call: runnerCall(token), base, task: `${base(instance)}/tasks/${taskId}` };
}

describe('cluster runner tokens', () => {
  it('are created with their secret once, listed without it, and revoked at once', async () => {
    const created = await server.http.post(`/2/clusters/${clusterA}/tokens`);
    expect(created.status).toBe(200);
    const { id, token, created_at } = created.body.token;
    expect(token).toMatch(/^runner_/);
    expect(Date.parse(created_at)).toBeGreaterThan(0);
    const listed = await server.http.get(`/2/clusters/${clusterA}/tokens`);
    expect(listed.body.tokens).toContainEqual({ id, created_at });
    expect(listed.text).not.toContain(token);
    expect((await runnerCall(token)('GET', '/runner/v1/token')).body.cluster_id).toBe(clusterA);

    expect((await server.http.delete(`/2/clusters/${clusterA}/tokens/${id}`)).status).toBe(200);
    const refused = await runnerCall(token)('GET', '/runner/v1/token');
    expect(refused.status).toBe(401);
    expect(refused.body.msg).toBe('Invalid or revoked runner token');
    expect((await server.http.get(`/2/clusters/${clusterA}/tokens`)).body.tokens).toEqual([]);
  });

  it('refuses unknown tokens and clusters', async () => {
    const unknown = await server.http.delete(`/2/clusters/${clusterA}/tokens/nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.msg).toContain('no runner token nope');
    expect((await server.http.post('/2/clusters/000000000000000000000000/tokens')).status).toBe(404);
  });

  it('is stored only as a digest: its secret is nowhere in Redis', async () => {
    const { token } = await createRunnerToken(server, clusterA);
    const redis = server.openRedis();
    try {
      const nodes = 'nodes' in redis ? redis.nodes('master') : [redis];
      for (const node of nodes) {
        const keys: string[] = [];
        for await (const page of node.scanStream({ count: 1000 })) keys.push(...(page as string[]));
        expect(keys.some((key) => key.includes(token))).toBe(false);
        for (const key of keys) {
          if ((await node.type(key)) !== 'hash') continue;
          const values = Object.entries(await node.hgetall(key)).flat();
          expect(
            values.some((value) => value.includes(token)),
            key,
          ).toBe(false);
        }
      }
    } finally {
      redis.disconnect();
    }
  });

  it('is refused by every tenant API', async () => {
    const { token } = await createRunnerToken(server, clusterA);
    const tenant = server.http.withToken(token);
    for (const path of [
      `/2/projects/${server.projectId}/tasks`,
      `/2/projects/${server.projectId}/codes`,
      '/2/clusters',
      `/3/projects/${server.projectId}/queues`,
      `/1/projects/${server.projectId}/caches`,
      `/2/projects/${server.projectId}/schedules`,
      `/1/projects/${server.projectId}/queues`,
      `/1/projects/${server.projectId}/history`,
      `/1/projects/${server.projectId}`,
      '/1/users',
      '/1/tokens',
      '/v1/apps',
    ]) {
      const response = await tenant.get(path);
      expect(response.status, path).toBe(401);
    }
  });
});

describe('a gateway runner pulling an image', () => {
  it('marks its held task, shown preparing until it starts', async () => {
    const { taskId, call, task } = await heldTask(clusterA, 'puller-1');
    const marked = await call('POST', `${task}/pulling`);
    expect(marked.status).toBe(200);
    expect(await worker.task(taskId)).toMatchObject({ status: 'preparing', runner_id: 'puller-1' });
    expect((await call('POST', `${task}/start`)).status).toBe(200);
    expect((await worker.task(taskId)).status).toBe('running');
  });
});

describe('the runner API refuses', () => {
  it('a missing or malformed credential, and an OAuth user token', async () => {
    const anonymous = server.http.withToken(null);
    expect((await anonymous.get('/runner/v1/token')).status).toBe(401);
    const userToken = await anonymous.get('/runner/v1/token', { headers: { Authorization: `OAuth ${server.token}` } });
    expect(userToken.status).toBe(401);
    expect((await runnerCall(server.token)('GET', '/runner/v1/token')).status).toBe(401);
  });

  it("another cluster's token with 403, at once", async () => {
    const { token } = await createRunnerToken(server, clusterA);
    const response = await runnerCall(token)('POST', `/runner/v1/clusters/${clusterB}/instances/r1/heartbeat`, {
      body: heartbeat(),
    });
    expect(response.status).toBe(403);
    expect(response.body.msg).toBe(`This runner token is for cluster ${clusterA}, not ${clusterB}`);
  });

  it('reports on a task the runner does not hold', async () => {
    const { taskId, call } = await heldTask(clusterA, 'holder-1');
    const other = `/runner/v1/clusters/${clusterA}/instances/holder-2`;
    await call('POST', `${other}/heartbeat`, { body: heartbeat() });
    for (const [method, rest, body] of [
      ['POST', 'pulling', undefined],
      ['POST', 'start', undefined],
      ['POST', 'finish', { from: ['preparing'], status: 'complete' }],
      ['GET', 'code', undefined],
      ['POST', 'release', undefined],
    ] as const) {
      const response = await call(method, `${other}/tasks/${taskId}/${rest}`, { body });
      expect(response.status, rest).toBe(403);
      expect(response.body.msg).toBe(`This runner does not hold task ${taskId}`);
    }
    expect((await worker.task(taskId)).status).toBe('queued');
  });

  it("registry credentials of an image other than the held task's", async () => {
    const { taskId, call } = await heldTask(clusterA, 'creds-1');
    const path = `/runner/v1/clusters/${clusterA}/instances/creds-1/tasks/${taskId}/registry-auth`;
    const own = await call('GET', `${path}?image=${encodeURIComponent('ferrum-test/busybox')}`);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ auth: null });
    const other = await call('GET', `${path}?image=${encodeURIComponent('registry.example.com/team/private:1')}`);
    expect(other.status).toBe(403);
    expect(other.body.msg).toBe(
      `Task ${taskId} runs image ferrum-test/busybox, not registry.example.com/team/private:1`,
    );
    expect((await call('GET', path)).status).toBe(406);
  });

  it('log chunks sent again, past a gap or after the end, without corrupting the log', async () => {
    const { taskId, call, task } = await heldTask(clusterA, 'logger-1');
    expect((await call('POST', `${task}/start`)).status).toBe(200);
    const log = (seq: number, text: string) => call('POST', `${task}/log?seq=${seq}`, { raw: Buffer.from(text) });
    expect((await log(1, 'one\n')).status).toBe(200);
    const again = await log(1, 'one\n');
    expect(again.status).toBe(200);
    expect(again.body.duplicate).toBe(true);
    expect((await log(2, 'two\n')).status).toBe(200);
    // Chunks 3 and 4 never came (the runner gave them up): 5 is written after a line saying so.
    const past = await log(5, 'five\n');
    expect(past.status).toBe(200);
    expect(past.body.duplicate).toBe(false);
    expect((await log(4, 'four\n')).body.duplicate).toBe(true);
    expect((await call('POST', `${task}/log?seq=0`, { raw: Buffer.from('x') })).status).toBe(400);
    expect((await call('POST', `${task}/finish`, { body: { from: ['running'], status: 'complete' } })).body).toEqual({
      ended: true,
    });
    const late = await log(6, 'six\n');
    expect(late.status).toBe(409);
    expect(late.body.msg).toContain('no longer running');
    expect(await worker.log(taskId)).toBe(
      'one\ntwo\n[log: 2 chunk(s) of output never reached the installation]\nfive\n',
    );
    expect((await worker.task(taskId)).status).toBe('complete');
    expect((await call('POST', `${task}/release`)).status).toBe(200);
    expect((await call('POST', `${task}/release`)).status).toBe(403);
  });

  it('a pull mark once the task started, with 409 naming its status', async () => {
    // On a cluster of its own, like 'bad-1' below.
    const { taskId, call, task } = await heldOnClusterOfItsOwn('runner-api-late-pull', 'puller-2');
    expect((await call('POST', `${task}/start`)).status).toBe(200);
    const late = await call('POST', `${task}/pulling`);
    expect(late.status).toBe(409);
    expect(late.body.msg).toBe(`Task ${taskId} is not preparing on this runner: it is running`);
    expect((await worker.task(taskId)).status).toBe('running');
  });

  it('bad heartbeats and finishes with 4xx naming the field', async () => {
    // On a cluster of its own, as holdTask takes the next task of its queue: a task an earlier
    // test's runner held goes back to clusterA's queue once that runner is gone.
    const cluster = await createCluster(server.http, 'runner-api-bad-input');
    const { token } = await createRunnerToken(server, cluster);
    const call = runnerCall(token);
    const base = `/runner/v1/clusters/${cluster}/instances/bad-1`;
    const missing = await call('POST', `${base}/heartbeat`, { body: { slots: 1 } });
    expect(missing.status).toBe(406);
    expect(missing.body.msg).toContain('busy is required');
    const zero = await call('POST', `${base}/heartbeat`, { body: { ...heartbeat(), slots: 0 } });
    expect(zero.status).toBe(400);
    expect(zero.body.msg).toContain('slots');
    const taskId = await holdTask(token, cluster, 'bad-1');
    const finish = await call('POST', `${base}/tasks/${taskId}/finish`, {
      body: { from: ['running'], status: 'queued' },
    });
    expect(finish.status).toBe(400);
    expect(finish.body.msg).toBeTruthy();
  });

  it('to take tasks for an instance that never registered', async () => {
    const { token } = await createRunnerToken(server, clusterA);
    const response = await runnerCall(token)('POST', `/runner/v1/clusters/${clusterA}/instances/ghost/tasks/next`);
    expect(response.status).toBe(409);
    expect(response.body.msg).toContain('heartbeat first');
  });
});

describe('a task its runner never started', { timeout: scaled(60_000) }, () => {
  it('goes to another runner when the token is revoked during the long-poll that would take it', async () => {
    const cluster = await createCluster(server.http, 'runner-api-revoke');
    const revoked = await createRunnerToken(server, cluster);
    const other = await createRunnerToken(server, cluster);
    const base = (instance: string) => `/runner/v1/clusters/${cluster}/instances/${instance}`;
    for (const [token, instance] of [
      [revoked.token, 'revoked-1'],
      [other.token, 'other-1'],
    ]) {
      expect((await runnerCall(token!)('POST', `${base(instance!)}/heartbeat`, { body: heartbeat() })).status).toBe(
        200,
      );
    }
    // The poll is past its token check (it asks whether its instance is alive next) before the
    // token is revoked.
    const alive = vi.spyOn(server.running.ctx.worker.runners, 'isAlive');
    const poll = runnerCall(revoked.token)('POST', `${base('revoked-1')}/tasks/next?wait_ms=20000`);
    try {
      await eventually(() => alive.mock.calls.some(([, instance]) => instance === 'revoked-1'), 10_000, 'the poll');
    } finally {
      alive.mockRestore();
    }
    expect((await server.http.delete(`/2/clusters/${cluster}/tokens/${revoked.id}`)).status).toBe(200);
    const taskId = await worker.queue('shell', 'echo', { cluster });

    const refused = await poll;
    expect(refused.status).toBe(401);
    expect(refused.body.msg).toBe('Invalid or revoked runner token');
    const next = await runnerCall(other.token)('POST', `${base('other-1')}/tasks/next?wait_ms=10000`);
    await expectTakenAgainUnretried(next, taskId, 'other-1');
  });

  // Each on a cluster of its own: the tasks earlier tests left held by runners gone by now go
  // back to their queues too.
  it('goes back to the queue, no retry used, when the runner never got the answer', async () => {
    const { taskId, call, base } = await heldOnClusterOfItsOwn('runner-api-unanswered', 'unanswered-1');
    // Its heartbeats do not list the task: it never received it. (A held task reads as queued
    // too: its going back shows as a change of the record.)
    await beatUntilQueuedAgain(call, `${base('unanswered-1')}/heartbeat`, taskId);
    const next = await call('POST', `${base('unanswered-1')}/tasks/next?wait_ms=10000`);
    await expectTakenAgainUnretried(next, taskId, 'unanswered-1');
  });

  it("goes back to the queue with a job when another runner's poll dropped its job meanwhile", async () => {
    const cluster = await createCluster(server.http, 'runner-api-dropped');
    const jobs = new Queue(queueNameOf(cluster), {
      connection: server.openRedis(),
      prefix: server.running.ctx.worker.keys.bullPrefix(),
    });
    try {
      const { taskId, call, base } = await heldTask(cluster, 'dropped-1');
      // Alive for long (beats of 10 s), it never lists the task: the job's lock lapses, the
      // stalled check puts the job back, and another runner's poll finds the task still held.
      const slow = { ...heartbeat(), heartbeat_ms: 10_000 };
      expect((await call('POST', `${base('dropped-1')}/heartbeat`, { body: slow })).status).toBe(200);
      expect((await call('POST', `${base('other-2')}/heartbeat`, { body: heartbeat() })).status).toBe(200);
      await eventually(
        async () => {
          const next = await call('POST', `${base('other-2')}/tasks/next?wait_ms=200`);
          expect(next.status).not.toBe(200);
          return !(await jobs.getJob(taskId));
        },
        20_000,
        'the job dropped by the other poll',
      );
      // Its runner's next beat (1 s beats now) gives the task back: queued, and with a job again.
      await beatUntilQueuedAgain(call, `${base('dropped-1')}/heartbeat`, taskId);
      await call('POST', `${base('other-2')}/heartbeat`, { body: heartbeat() });
      const next = await call('POST', `${base('other-2')}/tasks/next?wait_ms=5000`);
      expect(next.status).toBe(200);
      expect(next.body.task.id).toBe(taskId);
    } finally {
      await jobs.close();
    }
  });

  it('goes back to the queue, no retry used, when its runner stopped before starting it', async () => {
    const { taskId, call, base } = await heldOnClusterOfItsOwn('runner-api-vanished', 'vanished-1');
    // It heartbeats no more: once it is no longer alive, the job its lock held is another runner's.
    await eventually(
      async () => !(await call('GET', `${base('vanished-1')}/alive`)).body.alive,
      20_000,
      'the runner gone',
    );
    expect((await call('POST', `${base('heir-1')}/heartbeat`, { body: heartbeat() })).status).toBe(200);
    const next = await call('POST', `${base('heir-1')}/tasks/next?wait_ms=15000`);
    await expectTakenAgainUnretried(next, taskId, 'heir-1');
  });
});
