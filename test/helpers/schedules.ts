import { eventually } from './eventually.js';
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

/** createSchedule with `fields` over a first run far off (2099): the schedule stays scheduled through the test. */
export function createDormantSchedule(worker: WorkerClient, fields: Record<string, unknown>): Promise<string> {
  return createSchedule(worker, { start_at: '2099-01-01T00:00:00Z', ...fields });
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
  let schedule: any;
  return eventually(
    async () => {
      schedule = await getSchedule(worker, id);
      return done(schedule) && schedule;
    },
    timeoutMs,
    `schedule ${id} to get there`,
  ).catch((error: Error) => {
    throw new Error(`${error.message}: ${JSON.stringify(schedule)}`);
  });
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
  let tasks: any[] = [];
  return eventually(async () => {
    tasks = await tasksOfSchedule(worker, codeName, scheduleId);
    return tasks.length >= count && tasks;
  }, timeoutMs).catch(() => tasks);
}
