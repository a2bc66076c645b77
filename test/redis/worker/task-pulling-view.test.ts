import { afterEach, describe, expect, it } from 'vitest';
import { readThrough, useRedis, useTestServer } from '../../helpers/test-file.js';
import { useWorkerClient } from '../../helpers/worker-test-file.js';
import { FAST_WORKER_ENV } from '../../helpers/worker.js';
import type { WorkerServices } from '../../../src/worker/services.js';
import { scripts } from '../../../src/worker/tasks/scripts.js';
import type { Task } from '../../../src/worker/types.js';
import { eventually } from '../../helpers/eventually.js';
import { releaseLua, setStatusKeysBefore, takeTaskKeysBefore, withKeysLeftOut } from '../../helpers/release-lua.js';

// A taken task reads as `preparing` only while its runner pulls its image: the mark a direct
// runner's pull step sets (TaskStatusChanges.markPulling, what DirectBackend.pulling calls) and
// the API view, against Redis. No runner runs here: the test takes tasks as runner-1 does.
const server = useTestServer({ ...FAST_WORKER_ENV, FERRUM_TASK_SWEEP_MS: '0' });
const client = useWorkerClient(server, { name: 'pulled', image: 'ferrum-test/busybox' });
const worker = readThrough<WorkerServices>(() => server.running.ctx.worker);
const redis = useRedis(server);

async function takenTask(runnerId = 'runner-1'): Promise<Task> {
  const task = await worker.taskStore.get(server.projectId, await client.queue('pulled', 'x'));
  expect((await worker.statuses.take(task, runnerId, 10_000)).changed).toBe(true);
  return task;
}

/** Where RunnerTasks notes retries: none happen here. */
const quiet = { info: () => {}, warn: () => {} };
const mark = (task: Task, runnerId = 'runner-1') => worker.statuses.markPulling(task.project_id, task.id, runnerId);
const pullingAt = (task: Task) => redis.hget(worker.keys.task(task.project_id, task.id), 'pulling_at');
const listed = async (filter: string) =>
  ((await server.http.get(client.path(`/tasks?${filter}=1&per_page=100`))).body.tasks as { id: string }[]).map(
    (task) => task.id,
  );

describe('a taken task', () => {
  it('reads queued until its runner marks a pull, preparing then, running once started', async () => {
    const task = await takenTask();
    expect(await client.task(task.id)).toMatchObject({ status: 'queued', runner_id: 'runner-1' });
    // ?preparing=1 is every task a runner took and has not started, pulling or not.
    expect(await listed('preparing')).toContain(task.id);
    expect(await listed('queued')).not.toContain(task.id);

    expect(await mark(task)).toEqual({ changed: true, previous: 'preparing' });
    expect(await client.task(task.id)).toMatchObject({ status: 'preparing', runner_id: 'runner-1' });
    expect(await listed('preparing')).toContain(task.id);

    expect(await worker.runnerTasks.start(task, 'runner-1', 'host-1')).toBeTruthy();
    expect((await client.task(task.id)).status).toBe('running');
    expect(await pullingAt(task)).toBeNull();
  });

  it('is marked only by the runner holding it, and only while preparing', async () => {
    const task = await takenTask();
    expect(await mark(task, 'runner-2')).toEqual({ changed: false, previous: 'preparing' });
    expect((await client.task(task.id)).status).toBe('queued');
    const ended = await worker.runnerTasks.finish(task, 'runner-1', ['preparing'], { status: 'error' }, quiet);
    expect(ended).toBe(true);
    expect(await mark(task)).toEqual({ changed: false, previous: 'error' });
    expect(await mark({ ...task, id: 'no-such-task' })).toEqual({ changed: false, previous: '' });
    expect(await pullingAt(task)).toBeNull();
  });

  it('given back and taken again, no longer shows the pull of its earlier take', async () => {
    const task = await takenTask();
    await mark(task);
    expect(await worker.runnerTasks.giveBack(task, 'runner-1')).toBe(true);
    expect((await client.task(task.id)).status).toBe('queued');
    expect((await worker.statuses.take(task, 'runner-2', 10_000)).changed).toBe(true);
    expect(await client.task(task.id)).toMatchObject({ status: 'queued', runner_id: 'runner-2' });
  });
});

describe('beside the previous release (aa884e2), whose scripts keep the mark', () => {
  const saved = { takeTask: scripts.takeTask, setStatus: scripts.setStatus };
  afterEach(() => Object.assign(scripts, saved));

  it('an earlier take marked, given back and taken again by that release, reads queued', async () => {
    const task = await takenTask();
    await mark(task);
    const markedAt = Number(await pullingAt(task));
    // The old scripts run with this release's keys, less the queued payload keys they lack.
    const folders = ['src/worker/tasks/lua'];
    const old = (name: string) => releaseLua('aa884e2', 'src/worker/tasks/lua', name, folders);
    scripts.takeTask = withKeysLeftOut(old('take-task'), takeTaskKeysBefore);
    scripts.setStatus = withKeysLeftOut(old('set-task-status'), setStatusKeysBefore);
    await eventually(() => Date.now() > markedAt, 1000, 'a later millisecond');
    expect(await worker.runnerTasks.giveBack(task, 'runner-1')).toBe(true);
    expect((await worker.statuses.take(task, 'runner-2', 10_000)).changed).toBe(true);
    expect(await pullingAt(task)).toBe(String(markedAt));
    expect(await client.task(task.id)).toMatchObject({ status: 'queued', runner_id: 'runner-2' });
    // Its runner's start and end work as ever with the field there.
    expect(await worker.runnerTasks.start(task, 'runner-2', 'host-2')).toBeTruthy();
    expect((await client.task(task.id)).status).toBe('running');
  });
});
