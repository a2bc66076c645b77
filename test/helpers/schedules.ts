import { sleep } from '../../src/core/time.js';
import type { WorkerClient } from './worker.js';

/** Short intervals for schedule tests: the test-only floor and a fast scheduler tick. */
export const FAST_SCHEDULE_ENV: Record<string, string> = {
  FERRUM_TEST_MODE: '1',
  FERRUM_TEST_SCHEDULE_MIN_INTERVAL: '1',
  FERRUM_SCHEDULER_TICK_MS: '100',
};

export async function createSchedule(worker: WorkerClient, request: Record<string, unknown>): Promise<string> {
  const response = await worker.http.post(worker.path('/schedules'), { schedules: [request] });
  if (response.status !== 200) throw new Error(`schedule failed: ${response.status} ${response.text}`);
  return response.body.schedules[0].id;
}

export async function getSchedule(worker: WorkerClient, id: string): Promise<any> {
  return (await worker.http.get(worker.path(`/schedules/${id}`))).body;
}

/** The tasks a schedule queued, oldest first (they are all of one code package here). */
export async function tasksOfSchedule(worker: WorkerClient, codeName: string, scheduleId: string): Promise<any[]> {
  const response = await worker.http.get(worker.path(`/tasks?code_name=${codeName}&per_page=100`));
  return (response.body.tasks as any[]).filter((task) => task.schedule_id === scheduleId).reverse();
}

export async function waitForSchedule(
  worker: WorkerClient,
  id: string,
  done: (schedule: any) => boolean,
  timeoutMs = 15000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const schedule = await getSchedule(worker, id);
    if (done(schedule)) return schedule;
    if (Date.now() > deadline) throw new Error(`schedule ${id} did not get there: ${JSON.stringify(schedule)}`);
    await sleep(50);
  }
}

/**
 * The schedule's tasks once there are `count` of them: a run is claimed (and counted) just before
 * its task is written, so the task may trail the schedule's fields by a moment.
 */
export async function waitForTasks(
  worker: WorkerClient,
  codeName: string,
  scheduleId: string,
  count: number,
  timeoutMs = 5000,
): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const tasks = await tasksOfSchedule(worker, codeName, scheduleId);
    if (tasks.length >= count || Date.now() > deadline) return tasks;
    await sleep(50);
  }
}
