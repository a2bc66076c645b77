import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/test-file.js';
import { useWorkerClient } from '../../helpers/worker-test-file.js';
import { FAST_WORKER_ENV } from '../../helpers/worker.js';
import { loadConfig } from '../../../src/core/config.js';
import { nextRun } from '../../../src/worker/schedules/schedule-times.js';
import {
  createSchedule,
  FAST_SCHEDULE_ENV,
  getSchedule,
  tasksOfSchedule,
  waitForSchedule,
  waitForTasks,
} from '../../helpers/schedules.js';
import { scaled } from '../../helpers/pace.js';

// Runs a second apart through the test-only interval floor; no runner, so tasks stay queued.
const server = useTestServer({ ...FAST_WORKER_ENV, ...FAST_SCHEDULE_ENV });
const worker = useWorkerClient(
  server,
  { name: 'tick', image: 'ferrum-test/busybox' },
  { name: 'doomed', image: 'ferrum-test/busybox' },
);

function expectRunsApart(tasks: any[], everyMs: number): void {
  const times = tasks.map((task) => Date.parse(task.created_at));
  for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThan(everyMs / 2);
}

describe('schedule runs', () => {
  it('stops after run_times runs and marks the schedule complete', async () => {
    const id = await createSchedule(worker, {
      code_name: 'tick',
      payload: 'rt',
      run_every: 1,
      run_times: 3,
      priority: 2,
      cluster: 'default',
    });
    const done = await waitForSchedule(worker, id, (s) => s.status === 'complete');
    expect(done).toMatchObject({ run_count: 3, error_count: 0 });
    expect(done.next_start).toBeUndefined();
    const tasks = await waitForTasks(worker, 'tick', id, 3);
    expect(tasks).toHaveLength(3);
    expect(new Set(tasks.map((task) => task.id)).size).toBe(3);
    for (const task of tasks)
      expect(task).toMatchObject({ schedule_id: id, payload: 'rt', priority: 2, status: 'queued' });
    expectRunsApart(tasks, 1000);
    // The run is claimed, then its task is created: a few ms apart.
    expect(Date.parse(tasks[2].created_at) - Date.parse(done.last_run_time)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(tasks[2].created_at) - Date.parse(done.last_run_time)).toBeLessThan(scaled(1000));
  });

  it('stops at end_at', async () => {
    const start = Date.now() + 200;
    const id = await createSchedule(worker, {
      code_name: 'tick',
      payload: 'ea',
      run_every: 1,
      start_at: new Date(start).toISOString(),
      end_at: new Date(start + 2500).toISOString(),
    });
    const done = await waitForSchedule(worker, id, (s) => s.status === 'complete');
    expect(done.run_count).toBe(3);
    expect(await waitForTasks(worker, 'tick', id, 3)).toHaveLength(3);
  });

  it('runs on a cron expression with seconds, in a time zone', async () => {
    const id = await createSchedule(worker, {
      code_name: 'tick',
      payload: 'cr',
      cron: '* * * * * *',
      timezone: 'Asia/Kolkata',
      run_times: 2,
    });
    const done = await waitForSchedule(worker, id, (s) => s.status === 'complete');
    expect(done.run_count).toBe(2);
    const tasks = await waitForTasks(worker, 'tick', id, 2);
    expect(tasks).toHaveLength(2);
    // Each run belongs to its own second of the cron. When a run is claimed late (a busy
    // machine), the next one, on time, can come less than a second after it, but never in the
    // same second.
    const seconds = tasks.map((task) => Math.floor(Date.parse(task.created_at) / 1000));
    expect(new Set(seconds).size).toBe(seconds.length);
  });

  it('queues nothing more once cancelled', async () => {
    const id = await createSchedule(worker, { code_name: 'tick', payload: 'cx', run_every: 1 });
    await waitForSchedule(worker, id, (s) => s.run_count >= 1);
    expect((await server.http.post(worker.path(`/schedules/${id}/cancel`))).status).toBe(200);
    const runsAtCancel = (await getSchedule(worker, id)).run_count;
    // eslint-disable-next-line no-restricted-syntax -- a fixed window is the point: nothing more may happen within it (no run after the cancel)
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const schedule = await getSchedule(worker, id);
    expect(schedule).toMatchObject({ status: 'cancelled', run_count: runsAtCancel });
    expect(await tasksOfSchedule(worker, 'tick', id)).toHaveLength(runsAtCancel);
  });

  it('queues runs missed while no scheduler ran once, not once per missed interval', async () => {
    // start_at 10.5 s ago every 3 s: the runs at -10.5, -7.5, -4.5 and -1.5 s were all missed.
    const start = Date.now() - 10_500;
    const id = await createSchedule(worker, {
      code_name: 'tick',
      payload: 'missed',
      run_every: 3,
      start_at: new Date(start).toISOString(),
    });
    await waitForSchedule(worker, id, (s) => s.run_count >= 1);
    // eslint-disable-next-line no-restricted-syntax -- a fixed window is the point: nothing more may happen within it (missed runs are not queued one by one)
    await new Promise((resolve) => setTimeout(resolve, 600));
    const schedule = await getSchedule(worker, id);
    expect(schedule.run_count).toBe(1);
    expect(Date.parse(schedule.next_start)).toBe(start + 12_000);
    expect(await waitForTasks(worker, 'tick', id, 1)).toHaveLength(1);
    await server.http.post(worker.path(`/schedules/${id}/cancel`));
  });

  it('counts a run it cannot queue as an error and keeps going', async () => {
    const id = await createSchedule(worker, {
      code_name: 'doomed',
      payload: 'x',
      run_every: 1,
      // Time enough, even on a loaded machine, to delete the code before the first run.
      start_at: new Date(Date.now() + 5000).toISOString(),
      run_times: 2,
    });
    const codes = await server.http.get(worker.path('/codes'));
    const doomed = codes.body.codes.find((code: any) => code.name === 'doomed');
    expect((await server.http.delete(worker.path(`/codes/${doomed.id}`))).status).toBe(200);
    // A run is counted when claimed, its error once queueing it was refused: wait for both.
    const done = await waitForSchedule(worker, id, (s) => s.status === 'complete' && s.error_count === 2);
    expect(done).toMatchObject({ run_count: 2, error_count: 2 });
    expect(done.msg).toMatch(/doomed/);
  });
});

describe('run times', () => {
  const start = Date.parse('2030-01-01T00:00:00Z');
  it('skips runs missed while nothing was running: the next run is the first after now', () => {
    const now = start + 10 * 60_000 + 5_000;
    expect(nextRun({ start_at: start, run_every: 60 }, start, now, 1)).toBe(start + 11 * 60_000);
  });
  it('ends at run_times and at end_at', () => {
    expect(nextRun({ start_at: start, run_every: 60, run_times: 2 }, start, start, 2)).toBeUndefined();
    expect(
      nextRun({ start_at: start, run_every: 60, end_at: start + 90_000 }, start + 60_000, start + 60_000, 2),
    ).toBeUndefined();
  });
  it('follows cron in its time zone', () => {
    expect(nextRun({ start_at: start, cron: '0 9 * * *', timezone: 'Europe/Paris' }, start, start, 1)).toBe(
      Date.parse('2030-01-01T08:00:00Z'),
    );
  });
});

describe('the test-only interval floor', () => {
  it('is refused outside test mode and 60 seconds by default', () => {
    expect(() => loadConfig({ FERRUM_TEST_SCHEDULE_MIN_INTERVAL: '1' })).toThrow(
      /only with NODE_ENV=test or FERRUM_TEST_MODE=1/,
    );
    expect(loadConfig({}).schedules.minIntervalSeconds).toBe(60);
    expect(
      loadConfig({ FERRUM_TEST_MODE: '1', FERRUM_TEST_SCHEDULE_MIN_INTERVAL: '1' }).schedules.minIntervalSeconds,
    ).toBe(1);
  });
});
