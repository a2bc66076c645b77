import { beforeAll, describe, expect, it } from 'vitest';
import { newObjectId } from '../../../src/core/ids.js';
import { sleep } from '../../../src/core/time.js';
import { dueMember } from '../../../src/worker/schedules/scripts.js';
import { openScheduler } from '../../../src/worker/upkeep.js';
import {
  createSchedule,
  FAST_SCHEDULE_ENV,
  getSchedule,
  tasksOfSchedule,
  waitForSchedule,
  waitForTasks,
} from '../../helpers/schedules.js';
import { eventually } from '../../helpers/eventually.js';
import { startControllerBeside, useTestServer } from '../../helpers/test-file.js';
import { FAST_WORKER_ENV } from '../../helpers/worker.js';
import { workerClientOf } from '../../helpers/worker-test-file.js';

// Two controllers share one Redis, each with its scheduler loop; no runner, so tasks stay queued.
const server = useTestServer({ ...FAST_WORKER_ENV, ...FAST_SCHEDULE_ENV });
const worker = workerClientOf(server);
const startSecondController = () => startControllerBeside(server);

beforeAll(async () => {
  await worker.upload({ name: 'shared', image: 'ferrum-test/busybox' });
});

describe('schedules with two controllers', () => {
  it('queues each of 5 runs exactly once, across a restart of the second controller', async () => {
    let second = await startSecondController();
    try {
      const id = await createSchedule(worker, {
        code_name: 'shared',
        payload: 'two-leaders',
        run_every: 1,
        run_times: 5,
      });
      await waitForSchedule(worker, id, (s) => s.run_count >= 2);
      await second.stop();
      second = await startSecondController();
      const done = await waitForSchedule(worker, id, (s) => s.status === 'complete');
      expect(done.run_count).toBe(5);
      const tasks = await waitForTasks(worker, 'shared', id, 5);
      // eslint-disable-next-line no-restricted-syntax -- a fixed window is the point: nothing more may happen within it (no sixth task after the last run)
      await sleep(1200);
      expect(await tasksOfSchedule(worker, 'shared', id)).toHaveLength(5);
      expect(new Set(tasks.map((task) => task.id)).size).toBe(5);
      // Runs fall at start_at + k s and a late one skips the slots it missed (nextRun), so each
      // task lies in a second of its own past start_at; two claims of one run would share one.
      const start = Date.parse(done.start_at);
      const slots = tasks.map((task) => Math.floor((Date.parse(task.created_at) - start) / 1000));
      expect(new Set(slots).size, `seconds past start_at: ${slots.join(', ')}`).toBe(5);
    } finally {
      await second.stop();
    }
  });

  it('claims each run once when schedulers race outside the lease', async () => {
    const { ctx } = server.running;
    const racers = [0, 1, 2].map(() => openScheduler(ctx.config, ctx.worker));
    const start = new Date(Date.now() + 300).toISOString();
    const response = await server.http.post(worker.path('/schedules'), {
      schedules: Array.from({ length: 20 }, (_, i) => ({
        code_name: 'shared',
        payload: `race-${i}`,
        start_at: start,
      })),
    });
    const ids: string[] = response.body.schedules.map((s: any) => s.id);
    // eslint-disable-next-line no-restricted-syntax -- waits for start_at (300 ms ahead) to pass: a clock time, not a state to poll
    await sleep(300);
    await Promise.all(racers.flatMap((scheduler) => [scheduler.pass(), scheduler.pass()]));
    for (const id of ids) await waitForSchedule(worker, id, (s) => s.status === 'complete');
    for (const id of ids) await waitForTasks(worker, 'shared', id, 1);
    // eslint-disable-next-line no-restricted-syntax -- a fixed window is the point: nothing more may happen within it (no racer queues a second task)
    await sleep(500);
    const all = (await worker.http.get(worker.path('/tasks?code_name=shared&per_page=100'))).body.tasks as any[];
    for (const id of ids) {
      expect(all.filter((task) => task.schedule_id === id)).toHaveLength(1);
      expect((await getSchedule(worker, id)).run_count).toBe(1);
    }
  });

  it('queues a run whose scheduler died between claiming it and queueing its task', async () => {
    const { ctx } = server.running;
    const id = await createSchedule(worker, {
      code_name: 'shared',
      payload: 'orphan',
      start_at: '2099-01-01T00:00:00Z',
      run_every: 60,
    });
    const store = ctx.worker.scheduleStore;
    const schedule = await store.get(server.projectId, id);
    const taskId = newObjectId();
    const run = { member: dueMember(server.projectId, id), at: schedule.next_start! };
    // A scheduler claims the run and dies before queueing: the claim is all that is left.
    expect(await store.claim(server.projectId, id, run, Date.now(), schedule.next_start! + 60_000, taskId)).toBe(true);
    expect(await store.claim(server.projectId, id, run, Date.now(), schedule.next_start! + 60_000, newObjectId())).toBe(
      false,
    );
    await eventually(async () => (await worker.task(taskId)).id !== undefined, 10_000, 'the orphaned run queued');
    expect(await worker.task(taskId)).toMatchObject({
      id: taskId,
      schedule_id: id,
      payload: 'orphan',
      status: 'queued',
    });
    // eslint-disable-next-line no-restricted-syntax -- a fixed window is the point: nothing more may happen within it (the reclaim queues the run once)
    await sleep(2500);
    expect(await tasksOfSchedule(worker, 'shared', id)).toHaveLength(1);
    expect((await getSchedule(worker, id)).run_count).toBe(1);
  });
});
