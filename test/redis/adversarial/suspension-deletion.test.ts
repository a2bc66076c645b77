import { scanKeys } from '../../../src/core/scan.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant, useVictim, expectHealthyAndIntact, type Tenant } from '../../helpers/adversarial/tenant-data.js';
import { readThrough, useRedis, useTestServer } from '../../helpers/test-file.js';
import { openFunctionStores } from '../../../src/functions/services.js';
import type { WorkerServices } from '../../../src/worker/services.js';
import { eventually } from '../../helpers/eventually.js';
import { FAST_WORKER_ENV, WorkerClient, zipOf } from '../../helpers/worker.js';

// A tenant the operator suspended (or that deleted its project) must not get any work started,
// and a deleted project leaves nothing behind.
const server = useTestServer({ ...FAST_WORKER_ENV, FERRUM_PROJECT_JANITOR_MS: '100' });
const redis = useRedis(server);
const victim = useVictim(server);
const hostile = useTenant(server, 'hostile');
const worker = readThrough<WorkerServices>(() => server.running.ctx.worker);
let hostileWorker: WorkerClient;

beforeAll(async () => {
  hostileWorker = new WorkerClient(hostile.http, hostile.projectId);
  await hostileWorker.upload({ name: 'job', image: 'busybox', command: 'true' }, await zipOf({ 'x.txt': 'x' }));
});

const projectPath = (tenant: Tenant) => `/1/projects/${tenant.projectId}`;

async function setStatus(tenant: Tenant, status: 'active' | 'suspended') {
  const response = await server.http.patch(projectPath(tenant), { status });
  expect(response.status, response.text).toBe(200);
}

/** Keys of the project's hash tags still in Redis. */
async function keysOf(projectId: string): Promise<string[]> {
  const found: string[] = [];
  for await (const keys of scanKeys(redis, `*${projectId}*`, 1000)) found.push(...keys);
  return found;
}

describe('a suspended project', () => {
  let parkedTask: string;

  it('refuses its own tokens, while an admin can still look', async () => {
    parkedTask = await hostileWorker.queue('job', 'p');
    await setStatus(hostile, 'suspended');
    expect((await hostile.http.get(`/2/projects/${hostile.projectId}/tasks/${parkedTask}`)).status).toBe(403);
    const seen = await server.http.get(`/2/projects/${hostile.projectId}/tasks/${parkedTask}`);
    expect(seen.status).toBe(200);
  });

  it('gets no task started: the runner take script sets it aside', async () => {
    const task = (await worker.taskStore.find(hostile.projectId, parkedTask))!;
    const taken = await worker.statuses.take(task, 'a-runner', 30_000);
    expect(taken).toMatchObject({ changed: false, parked: true });
    expect((await worker.taskStore.find(hostile.projectId, parkedTask))!.status).toBe('queued');
  });

  it('gets no function call started', async () => {
    const stores = openFunctionStores(server.config, redis, server.running.ctx.keys);
    const created = await server.http.post(`/v1/apps?project_id=${hostile.projectId}`, {
      app: { name: 'hostile-app', project_id: hostile.projectId },
    });
    expect(created.status, created.text).toBe(200);
    // A call record as the invoke route writes it, queued before the runner gets to it.
    await redis.hset(stores.keys.call('hostile-app', 'call-1'), { id: 'call-1', status: 'queued' });
    expect((await stores.calls.start('hostile-app', 'call-1')).outcome).toBe('suspended');
    expect(await redis.hget(stores.keys.call('hostile-app', 'call-1'), 'status')).toBe('error');
  });

  it('lets an admin cancel its tasks', async () => {
    const other = await server.http.post(`/2/projects/${hostile.projectId}/tasks`, {
      tasks: [{ code_name: 'job', payload: 'q' }],
    });
    const id = other.body.tasks[0].id;
    const cancelled = await server.http.post(`/2/projects/${hostile.projectId}/tasks/${id}/cancel`);
    expect(cancelled.status, cancelled.text).toBe(200);
  });

  it('starts no schedule run and moves the schedule on', async () => {
    await setStatus(hostile, 'active');
    const startAt = new Date(Date.now() + 1500).toISOString();
    const made = await hostile.http.post(`/2/projects/${hostile.projectId}/schedules`, {
      schedules: [{ code_name: 'job', payload: 's', start_at: startAt, run_every: 60 }],
    });
    expect(made.status, made.text).toBe(200);
    const scheduleId = made.body.schedules[0].id;
    await setStatus(hostile, 'suspended');
    let schedule: any;
    await eventually(
      async () => {
        schedule = (await server.http.get(`/2/projects/${hostile.projectId}/schedules/${scheduleId}`)).body;
        return Date.parse(schedule.next_start) > Date.parse(startAt);
      },
      20_000,
      'the schedule moved past its first run',
    );
    expect(schedule.run_count ?? 0).toBe(0);
  });

  it('queues the set-aside tasks again when the suspension ends', async () => {
    await setStatus(hostile, 'active');
    const task = (await worker.taskStore.find(hostile.projectId, parkedTask))!;
    const parked = worker.keys.parkedTasks(hostile.projectId, task.code_id);
    await eventually(async () => (await redis.zcard(parked)) === 0, 20_000, 'the parked task was queued again');
    expect((await worker.taskStore.find(hostile.projectId, parkedTask))!.status).toBe('queued');
  });

  it('stops its running tasks, as a deletion does; queued ones wait for the suspension to end', async () => {
    await setStatus(hostile, 'active');
    const runningId = await hostileWorker.queue('job', 'long');
    const waitingId = await hostileWorker.queue('job', 'waits');
    const running = (await worker.taskStore.find(hostile.projectId, runningId))!;
    expect(await worker.statuses.take(running, 'a-runner', 30_000)).toMatchObject({ changed: true });
    await setStatus(hostile, 'suspended');
    await eventually(
      async () => {
        return (await worker.taskStore.find(hostile.projectId, runningId))!.status === 'cancelled';
      },
      20_000,
      'the running task was cancelled',
    );
    expect((await worker.taskStore.find(hostile.projectId, waitingId))!.status).toBe('queued');
    await setStatus(hostile, 'active');
  });

  it('suspends the projects of a suspended user', async () => {
    const user = await server.http.patch(`/1/users/${hostile.id}`, { status: 'suspended' });
    expect(user.status, user.text).toBe(200);
    expect(await redis.exists(worker.keys.projectSuspended(hostile.projectId))).toBe(1);
    await server.http.patch(`/1/users/${hostile.id}`, { status: 'active' });
    expect(await redis.exists(worker.keys.projectSuspended(hostile.projectId))).toBe(0);
  });
});

describe('a deleted project', () => {
  it('is purged in the background, and its id is never given again', async () => {
    const base = `/3/projects/${hostile.projectId}/queues`;
    const posted = await hostile.http.post(`${base}/q/messages`, { messages: [{ body: 'a' }, { body: 'b' }] });
    expect(posted.status).toBe(201);
    await hostile.http.put(`${projectPath(hostile)}/caches/c/items/k`, { value: 'v' });
    await hostileWorker.queue('job', 'later');
    const deleted = await hostile.http.delete(projectPath(hostile));
    expect(deleted.status, deleted.text).toBe(200);
    await eventually(
      async () => (await keysOf(hostile.projectId)).length === 0,
      20_000,
      'no key of the project is left',
    );
    const reused = await server.http.post('/1/projects', { name: 'again', id: hostile.projectId });
    expect(reused.status).toBe(409);
    await expectHealthyAndIntact(server, victim);
  });
});
