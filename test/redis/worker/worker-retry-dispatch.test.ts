import { Queue } from 'bullmq';
import type { RedisClient } from '../../../src/core/redis.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueNameOf, type TaskJob } from '../../../src/worker/tasks/queues/distribution.js';
import type { WorkerServices } from '../../../src/worker/services.js';
import { TaskSweeper } from '../../../src/worker/tasks/queues/task-sweeper.js';
import type { Task } from '../../../src/worker/types.js';
import { useTestServer } from '../../helpers/test-file.js';
import { workerClientOf } from '../../helpers/worker-test-file.js';
import { eventually } from '../../helpers/eventually.js';
import { FAST_WORKER_ENV } from '../../helpers/worker.js';

// No runner and no sweeper loop run here: the test plays both, step by step.
const server = useTestServer({ ...FAST_WORKER_ENV, FERRUM_TASK_SWEEP_MS: '0' });
const client = workerClientOf(server);
let worker: WorkerServices;
let sweeper: TaskSweeper;
let redis: RedisClient;
let jobs: Queue<TaskJob>;

async function takenTask(payload: string): Promise<Task> {
  const task = await worker.taskStore.get(server.projectId, await client.queue('flaky', payload));
  expect((await worker.statuses.take(task, 'runner-1', 10_000)).changed).toBe(true);
  return task;
}

/** Room enough for any task these tests queue. */
const ROOMY = { most: 1_000_000, allowance: 1e12 };
const undispatched = () => redis.zrange(worker.keys.undispatchedTasks(server.projectId), 0, -1);

beforeAll(async () => {
  worker = server.running.ctx.worker;
  sweeper = new TaskSweeper(server.running.ctx.redis, worker.keys, worker.taskStore, worker.tasks, {
    listProjectIds: (after, count) => server.running.ctx.identity.projects.listProjectIds(after, count),
    dispatchGraceMs: 0,
  });
  redis = server.openRedis();
  jobs = new Queue<TaskJob>(queueNameOf('default'), { connection: redis, prefix: worker.keys.bullPrefix() });
  await client.upload({ name: 'flaky', image: 'ferrum-test/busybox', retries: 2, retries_delay: 5 });
});

afterAll(async () => {
  await jobs?.close();
  await redis?.quit();
});

describe('a retry survives a crash between the final status and its dispatch', () => {
  it('writes the retry with the final status, and the sweeper dispatches it', async () => {
    const task = await takenTask('first');
    const retry = await worker.tasks.retryFor(task, 'error');
    expect(retry).toMatchObject({ retry_of: task.id, retry_count: 1, delay: 5, status: 'queued' });
    // Step one of ending the task; the runner "crashes" before adding the BullMQ job.
    const ended = await worker.statuses.change(server.projectId, task.id, {
      from: ['preparing'],
      to: 'error',
      runner: 'runner-1',
      retry: { task: retry!, room: ROOMY },
    });
    expect(ended.changed).toBe(true);

    expect(await client.task(task.id)).toMatchObject({ status: 'error', retry_task_id: retry!.id });
    expect(await client.task(retry!.id)).toMatchObject({
      status: 'queued',
      original_task_id: task.id,
      retry_count: '1',
    });
    const listed = await server.http.get(client.path('/tasks?queued=1&code_name=flaky'));
    expect(listed.body.tasks.map((listedTask: { id: string }) => listedTask.id)).toContain(retry!.id);
    expect(await jobs.getJob(retry!.id)).toBeUndefined();
    expect(await undispatched()).toContain(retry!.id);

    await sweeper.pass();
    const job = await jobs.getJob(retry!.id);
    expect(job?.data).toEqual({ project_id: server.projectId, task_id: retry!.id });
    expect(job?.opts.delay).toBeGreaterThan(0);
    expect(await undispatched()).toEqual([]);
  });

  it('writes no retry when the status change loses the race', async () => {
    const task = await takenTask('second');
    await worker.tasks.cancel(server.projectId, task.id);
    const retry = await worker.tasks.retryFor(task, 'timeout');
    const ended = await worker.statuses.change(server.projectId, task.id, {
      from: ['preparing', 'running'],
      to: 'timeout',
      retry: { task: retry!, room: ROOMY },
    });
    expect(ended).toEqual({ changed: false, previous: 'cancelled' });
    expect(await worker.taskStore.find(server.projectId, retry!.id)).toBeNull();
    expect(await undispatched()).not.toContain(retry!.id);
  });

  it('ends a task with its retry dispatched at once when nothing crashes', async () => {
    const task = await takenTask('third');
    const { result, retry } = await worker.tasks.end(task, { from: ['preparing'], to: 'error', runner: 'runner-1' });
    expect(result.changed).toBe(true);
    const job = await jobs.getJob(retry!.id);
    expect(job).toBeDefined();
    expect(await undispatched()).toEqual([]);
    // Due retries_delay after the task ended, however long ending it took (not after an earlier moment).
    const endTime = (await worker.taskStore.get(server.projectId, task.id)).end_time!;
    expect(retry!.created_at).toBe(Number(endTime));
    expect(job!.timestamp + job!.opts.delay!).toBeGreaterThanOrEqual(Number(endTime) + 5000);
  });

  it('queues no retry for a complete task or one out of retries', async () => {
    const task = await takenTask('fourth');
    expect(await worker.tasks.retryFor(task, 'complete')).toBeNull();
    expect(await worker.tasks.retryFor({ ...task, retry_count: 2 }, 'error')).toBeNull();
  });
});

describe('a task written without its BullMQ job', () => {
  it('is dispatched by the sweeper while queued, and skipped once cancelled', async () => {
    const code = (await worker.codes.findByName(server.projectId, 'flaky'))!;
    const base = {
      project_id: server.projectId,
      code_id: code.id,
      code_name: 'flaky',
      code_rev: code.rev,
      code_history_id: code.latest_history_id,
    };
    const now = Date.now();
    const fields = {
      status: 'queued' as const,
      created_at: now,
      updated_at: now,
      payload: '{}',
      priority: 0,
      timeout: 60,
      delay: 0,
      cluster: 'default',
      log_size: 0,
    };
    const kept: Task = { ...base, ...fields, id: 'a'.repeat(24) };
    const dropped: Task = { ...base, ...fields, id: 'b'.repeat(24) };
    // The API "crashes" after writing the records, before adding the jobs.
    await worker.taskStore.createQueued(server.projectId, [kept, dropped], ROOMY);
    await worker.statuses.cancel(server.projectId, dropped.id);

    expect(await sweeper.dispatchLate(server.projectId)).toBe(1);
    expect(await jobs.getJob(kept.id)).toBeDefined();
    expect(await jobs.getJob(dropped.id)).toBeUndefined();
    expect(await undispatched()).toEqual([]);
  });
});

describe('a run no runner runs any more (its job is gone, e.g. after a Redis failover)', () => {
  const quiet = { info: () => undefined, warn: () => undefined };
  const lostRunSweeper = (graceMs: number) =>
    new TaskSweeper(server.running.ctx.redis, worker.keys, worker.taskStore, worker.tasks, {
      listProjectIds: (after, count) => server.running.ctx.identity.projects.listProjectIds(after, count),
      dispatchGraceMs: graceMs,
      endIfLost: (task) => worker.runnerTasks.endIfLost(task, quiet),
    });
  /** `runnerId` heartbeats now with these tasks, its liveness `ttlMs`. */
  const heartbeat = (runnerId: string, tasks: string[], ttlMs: number) =>
    worker.runners.heartbeat(
      {
        instance_id: runnerId,
        cluster: 'default',
        hostname: 'test',
        slots: 4,
        busy: tasks.length,
        tasks,
        version: 'test',
        created_at: Date.now(),
        updated_at: 0,
        expires_at: 0,
      },
      ttlMs,
    );
  /** A task `runnerId` took and started, with its job dropped (as a lost write would leave it). */
  async function runningTask(payload: string, runnerId: string): Promise<Task> {
    const id = await client.queue('flaky', payload);
    await jobs.remove(id);
    const task = await worker.taskStore.get(server.projectId, id);
    expect((await worker.statuses.take(task, runnerId, 10_000)).changed).toBe(true);
    expect((await worker.runnerTasks.start(task, runnerId, 'test-host')) !== null).toBe(true);
    return worker.taskStore.get(server.projectId, id);
  }
  const statusOf = async (id: string) => (await worker.taskStore.get(server.projectId, id)).status;

  it('ends as an error once its alive runner heartbeats without it, long after its last change', async () => {
    const task = await runningTask('lost', 'runner-forgot');
    const listed = await runningTask('listed', 'runner-remembers');
    // The runners must still be alive when the sweeps below run, however busy the machine.
    const ttlMs = 2_000;
    // Heartbeats a liveness after the tasks' last change: one runner lists its task, one does not.
    await eventually(() => Date.now() > Math.max(task.updated_at, listed.updated_at) + ttlMs + 50, 10_000);
    await heartbeat('runner-forgot', [], ttlMs);
    await heartbeat('runner-remembers', [listed.id], ttlMs);
    // A grace longer than the tasks' age: not judged yet.
    expect(await lostRunSweeper(60_000).endLostRuns(server.projectId, Date.now())).toBe(0);
    // (Earlier tests' tasks taken by runner-1, which never heartbeated, end here too.)
    expect(await lostRunSweeper(0).endLostRuns(server.projectId, Date.now())).toBeGreaterThanOrEqual(1);
    const ended = await worker.taskStore.get(server.projectId, task.id);
    expect(ended).toMatchObject({
      status: 'error',
      msg: 'The runner running this task (runner-forgot) no longer runs it',
    });
    expect(await statusOf(listed.id)).toBe('running');
    // Its code allows retries: the lost run is retried like any error.
    expect(ended.retry_task_id).toBeTruthy();
  });

  it('ends as an error when its runner stopped heartbeating', async () => {
    const task = await runningTask('orphan', 'runner-gone');
    await worker.runners.deregister('default', 'runner-gone');
    expect(await lostRunSweeper(0).endLostRuns(server.projectId, Date.now() + 1)).toBe(1);
    expect(await worker.taskStore.get(server.projectId, task.id)).toMatchObject({
      status: 'error',
      msg: 'The runner running this task (runner-gone) stopped before the task finished',
    });
  });
});
