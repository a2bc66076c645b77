import { afterEach, describe, expect, it } from 'vitest';
import { useVictim, expectHealthyAndIntact, newTenant } from '../../helpers/adversarial/tenant-data.js';
import { readThrough, useRedis, useTestServer } from '../../helpers/test-file.js';
import type { WorkerServices } from '../../../src/worker/services.js';
import {
  CHECKED_PER_SWEEP,
  QueuedTaskRepair,
  type RepairPass,
} from '../../../src/worker/tasks/queues/queued-repair.js';
import { scripts } from '../../../src/worker/tasks/scripts.js';
import type { Task } from '../../../src/worker/types.js';
import { eventually } from '../../helpers/eventually.js';
import { MqClient, pushStatuses } from '../../helpers/mq.js';
import { scaled } from '../../helpers/pace.js';
import { releaseLua, takeTaskKeysBefore, withKeysLeftOut } from '../../helpers/release-lua.js';
import { FAST_WORKER_ENV, WorkerClient } from '../../helpers/worker.js';

// Queued tasks count toward their project's quotas: how many (queued_tasks) and their payloads'
// bytes (stored_bytes), reserved in the step that writes them by every way of queueing one (a
// client, a retry, an ironworker:/// subscriber), given back when a task leaves the queue. No
// runner runs here: tests take tasks as a runner does (TaskStatusChanges.take).
const server = useTestServer({ ...FAST_WORKER_ENV, FERRUM_TASK_SWEEP_MS: '0' });
const redis = useRedis(server);
const victim = useVictim(server);
const worker = readThrough<WorkerServices>(() => server.running.ctx.worker);

/** A tenant whose project has `quotas` (set by the admin) and a code package `job`. */
async function tenantWith(name: string, quotas: Record<string, number>) {
  const tenant = await newTenant(server, name);
  const set = await server.http.patch(`/1/projects/${tenant.projectId}`, { quotas });
  expect(set.status, set.text).toBe(200);
  const client = new WorkerClient(tenant.http, tenant.projectId);
  await client.upload({ name: 'job', image: 'ferrum-test/busybox', command: 'true', retries: 1 });
  return { tenant, client };
}

async function queueStatus(client: WorkerClient, payloads: string[]): Promise<{ status: number; msg: string }> {
  const tasks = payloads.map((payload) => ({ code_name: 'job', payload }));
  const response = await client.http.post(client.path('/tasks'), { tasks });
  return { status: response.status, msg: response.body?.msg ?? '' };
}

async function queuedIds(client: WorkerClient): Promise<string[]> {
  const listed = await client.http.get(client.path('/tasks?queued=1&per_page=100'));
  expect(listed.status, listed.text).toBe(200);
  return listed.body.tasks.map((task: { id: string }) => task.id);
}

const taskOf = (client: WorkerClient, id: string): Promise<Task> => worker.taskStore.get(client.projectId, id);

describe('the queued_tasks quota', () => {
  it('holds under 30 racing queue requests: exactly the quota is queued, the rest 403 naming it', async () => {
    const { client } = await tenantWith('racer', { queued_tasks: 5 });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => queueStatus(client, [`{"n":${i}}`])));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(5);
    const refused = answers.filter((answer) => answer.status === 403);
    expect(refused).toHaveLength(25);
    expect(refused[0]!.msg).toContain('quota queued_tasks reached');
    expect(refused[0]!.msg).toContain('FERRUM_PROJECT_MAX_QUEUED_TASKS');
    expect(await queuedIds(client)).toHaveLength(5);
  });

  it('refuses a request of more tasks than the room whole, writing none of them', async () => {
    const { client } = await tenantWith('batch', { queued_tasks: 5 });
    expect((await queueStatus(client, ['{}', '{}'])).status).toBe(200);
    const batch = await queueStatus(
      client,
      Array.from({ length: 4 }, () => '{}'),
    );
    expect(batch.status).toBe(403);
    expect(await queuedIds(client)).toHaveLength(2);
    expect((await queueStatus(client, ['{}', '{}', '{}'])).status).toBe(200);
  });

  it('gives a place back when a task is taken, cancelled, or its run given back takes it again', async () => {
    const { client } = await tenantWith('leaver', { queued_tasks: 2 });
    const [first, second] = [await client.queue('job', '{}'), await client.queue('job', '{}')];
    expect((await queueStatus(client, ['{}'])).status).toBe(403);
    const taken = await taskOf(client, first);
    expect((await worker.statuses.take(taken, 'runner-1', 10_000)).changed).toBe(true);
    const third = await client.queue('job', '{}');
    expect((await queueStatus(client, ['{}'])).status).toBe(403);
    expect((await client.http.post(client.path(`/tasks/${second}/cancel`))).status).toBe(200);
    await client.queue('job', '{}');
    // A run its runner never started goes back to the queue, taking its place again.
    expect(await worker.runnerTasks.giveBack(taken, 'runner-1')).toBe(true);
    expect(await redis.hlen(worker.keys.queuedPayloads(client.projectId))).toBe(3);
    expect((await client.http.post(client.path(`/tasks/${third}/cancel`))).status).toBe(200);
    expect((await queueStatus(client, ['{}'])).status).toBe(403);
    expect((await worker.statuses.take(taken, 'runner-2', 10_000)).changed).toBe(true);
    expect((await queueStatus(client, ['{}'])).status).toBe(200);
  });

  it('leaves out an automatic retry past it, the ended task’s message saying so', async () => {
    const { client } = await tenantWith('retrier', { queued_tasks: 1 });
    const task = await taskOf(client, await client.queue('job', '{}'));
    expect((await worker.statuses.take(task, 'runner-1', 10_000)).changed).toBe(true);
    await client.queue('job', '{}');
    const { result, retry } = await worker.tasks.end(task, { from: ['preparing'], to: 'error', runner: 'runner-1' });
    expect(result).toMatchObject({ changed: true, retryRefused: 'queued_tasks' });
    expect(retry).toBeNull();
    const ended = await client.task(task.id);
    expect(ended.status).toBe('error');
    expect(ended.msg).toContain('retry not queued: quota queued_tasks reached');
    expect(ended.retry_task_id).toBeUndefined();
  });
});

describe('queued task payloads in stored_bytes', () => {
  it('count with the project’s other data: past it, 413 naming stored_bytes, for tasks and cache items alike', async () => {
    const { tenant, client } = await tenantWith('payloads', { stored_bytes: 150_000 });
    const payload = 'x'.repeat(60_000);
    const first = await client.queue('job', payload);
    await client.queue('job', payload);
    const third = await queueStatus(client, [payload]);
    expect(third.status).toBe(413);
    expect(third.msg).toContain('quota stored_bytes reached');
    expect(third.msg).toContain('queued task payloads');
    const cache = `/1/projects/${tenant.projectId}/caches/c/items/k`;
    expect((await tenant.http.put(cache, { value: 'y'.repeat(40_000) })).status).toBe(413);
    expect((await client.http.post(client.path(`/tasks/${first}/cancel`))).status).toBe(200);
    expect((await tenant.http.put(cache, { value: 'y'.repeat(40_000) })).status).toBe(200);
    await expectHealthyAndIntact(server, victim);
  });
});

describe('ironworker:/// subscribers queue through the same reservation', () => {
  it('one post to 20 such subscribers queues the quota’s worth; each refusal is that subscriber’s error', async () => {
    const { tenant, client } = await tenantWith('fanout', { queued_tasks: 4 });
    const mq = new MqClient(tenant.http, tenant.projectId);
    const subscribers = Array.from({ length: 20 }, (_, i) => ({ name: `s${i}`, url: 'ironworker:///job' }));
    const created = await mq.createQueue('fan', { type: 'multicast', push: { subscribers, retries: 0 } });
    expect(created.status, created.text).toBe(200);
    const [id] = await mq.postBodies('fan', '{"from":"a push"}');
    const statuses = await eventually(async () => {
      const list = await pushStatuses(mq, 'fan', id!);
      return list.length === 20 && list.every((entry) => entry.status !== 'retrying' && entry.status !== 'queued')
        ? list
        : undefined;
    }, scaled(20_000));
    const refused = statuses.filter((entry) => entry.status === 'error');
    expect(refused).toHaveLength(16);
    expect(refused.every((entry) => entry.status_code === 403)).toBe(true);
    expect(refused[0].error_message).toContain('queued_tasks');
    expect(await queuedIds(client)).toHaveLength(4);
    await expectHealthyAndIntact(server, victim);
  });
});

describe('beside the previous release (f89fce9), which keeps no payload entries', () => {
  const saved = scripts.takeTask;
  afterEach(() => {
    scripts.takeTask = saved;
  });

  it('a task it takes keeps its entry until the task sweeper gives it back', async () => {
    const { client } = await tenantWith('old-runner', { queued_tasks: 1 });
    const task = await taskOf(client, await client.queue('job', '{}'));
    const folders = ['src/worker/tasks'];
    scripts.takeTask = withKeysLeftOut(
      releaseLua('f89fce9', 'src/worker/tasks', 'take-task', folders),
      takeTaskKeysBefore,
    );
    expect((await worker.statuses.take(task, 'runner-old', 10_000)).changed).toBe(true);
    scripts.takeTask = saved;
    // The old release's take left the entry: the project reads as full until the repair.
    expect((await queueStatus(client, ['{}'])).status).toBe(403);
    expect(await worker.runnerTasks.finish(task, 'runner-old', ['preparing'], { status: 'complete' }, quiet)).toBe(
      true,
    );
    expect((await sweeperRepair(client.projectId)).released).toBe(1);
    expect(await redis.get(worker.keys.queuedPayloadTotal(client.projectId))).toBe('0');
    expect((await queueStatus(client, ['{}'])).status).toBe(200);
  });

  it('the sweeper reads the entries only while some are stale, at most CHECKED_PER_SWEEP a sweep', async () => {
    const { client } = await tenantWith('many-left', { queued_tasks: 10 });
    for (let i = 0; i < 3; i++) await client.queue('job', '{}');
    const payloads = worker.keys.queuedPayloads(client.projectId);
    const total = worker.keys.queuedPayloadTotal(client.projectId);
    const totalBefore = await redis.get(total);
    const repair = new QueuedTaskRepair(server.running.ctx.redis, worker.keys);
    // Each entry has its queued task: nothing is read.
    expect(await repair.repair(client.projectId)).toEqual({ checked: 0, released: 0 });

    // As if the previous release had taken and ended 2,500 tasks (ids of 1970): their entries stay.
    const stale = Array.from({ length: 2500 }, (_, i) => `00000001${i.toString(16).padStart(16, '0')}`);
    for (let i = 0; i < stale.length; i += 500)
      await redis.hset(payloads, ...stale.slice(i, i + 500).flatMap((id) => [id, 10]));
    await redis.incrby(total, 10 * stale.length);
    const passes = [];
    while ((await redis.hlen(payloads)) > 3) {
      const pass = await repair.repair(client.projectId);
      // HSCAN's COUNT is a hint: a pass may read a little past the bound.
      expect(pass.checked).toBeGreaterThan(0);
      expect(pass.checked).toBeLessThan(CHECKED_PER_SWEEP * 1.5);
      passes.push(pass);
    }
    expect(passes.length).toBeGreaterThanOrEqual(Math.ceil(2503 / (CHECKED_PER_SWEEP * 1.5)));
    expect(passes.reduce((sum, pass) => sum + pass.released, 0)).toBe(stale.length);
    expect(await redis.get(total)).toBe(totalBefore);
    expect(await queuedIds(client)).toHaveLength(3);
    // The pass through the entries ended with them: back to two counts.
    expect(await repair.repair(client.projectId)).toEqual({ checked: 0, released: 0 });
  });

  it('its queued tasks (no entries) still count through the queued index', async () => {
    const { client } = await tenantWith('old-writer', { queued_tasks: 2 });
    const ids = [await client.queue('job', '{}'), await client.queue('job', '{}')];
    // As if the previous release had written them: no entries.
    await redis.del(worker.keys.queuedPayloads(client.projectId), worker.keys.queuedPayloadTotal(client.projectId));
    expect((await queueStatus(client, ['{}'])).status).toBe(403);
    // Releasing a task without an entry releases nothing, and the total never goes below 0.
    expect((await client.http.post(client.path(`/tasks/${ids[0]}/cancel`))).status).toBe(200);
    expect(await redis.get(worker.keys.queuedPayloadTotal(client.projectId))).toBeNull();
    expect((await queueStatus(client, ['{}'])).status).toBe(200);
  });
});

const quiet = { info: () => undefined, warn: () => undefined } as never;

function sweeperRepair(projectId: string): Promise<RepairPass> {
  return new QueuedTaskRepair(server.running.ctx.redis, worker.keys).repair(projectId);
}
