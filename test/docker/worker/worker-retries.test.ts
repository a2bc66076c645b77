import { beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../../src/core/time.js';
import { eventually } from '../../helpers/eventually.js';
import { RUNNER_MODES } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';
import { useRunner, workerTestFile } from '../../helpers/worker-test-file.js';

const { server, worker } = workerTestFile();

const shell = 'sh -c "$(cat $PAYLOAD_FILE)"';

/** A runner of the default cluster in `mode` for the tests of one describe block, and its packages. */
function withRunner(mode: (typeof RUNNER_MODES)[number], codes: Record<string, object>): void {
  useRunner(server, {}, { mode });
  beforeAll(async () => {
    for (const [name, settings] of Object.entries(codes))
      await worker.upload({ name, image: 'ferrum-test/busybox', command: shell, ...settings });
  }, scaled(30000));
}

async function tasksOf(codeName: string): Promise<any[]> {
  return (await server.http.get(worker.path(`/tasks?code_name=${codeName}`))).body.tasks;
}

const ended = ['complete', 'error', 'timeout', 'cancelled'];

/** The ended task, once its retry is queued (the runner queues it just after the end). */
async function endedWithRetry(id: string): Promise<any> {
  const task = await worker.waitFor(id, ended);
  if (task.retry_task_id) return task;
  return eventually(
    async () => {
      const again = await worker.task(id);
      return again.retry_task_id ? again : undefined;
    },
    20000,
    `the retry of ${id}`,
  );
}

/** `length` tasks linked by retry_task_id from `id`, all ended. */
async function retryChain(id: string, length: number): Promise<any[]> {
  const chain = [];
  let next = id;
  for (let i = 1; i < length; i++) {
    const task = await endedWithRetry(next);
    chain.push(task);
    next = task.retry_task_id;
  }
  chain.push(await worker.waitFor(next, ended));
  return chain;
}

describe.each(RUNNER_MODES)('automatic retries (%s runner)', (mode) => {
  // Package names of this mode's tests, so that each mode counts only its own tasks.
  const flaky = `flaky-${mode}`;
  const slow = `slow-${mode}`;
  const steady = `steady-${mode}`;
  withRunner(mode, {
    [flaky]: { retries: 2, retries_delay: 1 },
    [slow]: { retries: 1 },
    [steady]: { retries: 3 },
  });

  it(
    'retries a failing task after retries_delay until retries are used up',
    async () => {
      const id = await worker.queue(flaky, 'exit 3');
      const chain = await retryChain(id, 3);
      expect(chain.map((task) => task.status)).toEqual(['error', 'error', 'error']);
      expect(chain.map((task) => task.retry_count)).toEqual([undefined, '1', '2']);
      for (let i = 1; i < chain.length; i++) {
        expect(chain[i].original_task_id).toBe(chain[i - 1].id);
        expect(chain[i]).toMatchObject({ payload: 'exit 3', delay: 1 });
        // The retry started no sooner than retries_delay after its predecessor ended.
        expect(Date.parse(chain[i].start_time) - Date.parse(chain[i - 1].end_time)).toBeGreaterThanOrEqual(1000);
      }
      // eslint-disable-next-line no-restricted-syntax -- a fixed window is the point: nothing more may happen within it (no further retry)
      await sleep(1500);
      expect(await tasksOf(flaky)).toHaveLength(3);
      expect((await worker.task(chain[2].id)).retry_task_id).toBeUndefined();
    },
    scaled(40000),
  );

  it(
    'retries a task that timed out',
    async () => {
      const id = await worker.queue(slow, 'sleep 30', { timeout: 1 });
      const chain = await retryChain(id, 2);
      // eslint-disable-next-line no-restricted-syntax -- a fixed window is the point: nothing more may happen within it (no further retry)
      await sleep(1000);
      expect((await worker.task(chain[1].id)).retry_task_id).toBeUndefined();
      expect(chain.map((task) => [task.status, task.retry_count])).toEqual([
        ['timeout', undefined],
        ['timeout', '1'],
      ]);
    },
    scaled(40000),
  );

  it(
    'never retries a complete or a cancelled task',
    async () => {
      const done = await worker.queue(steady, 'exit 0');
      expect((await worker.waitFor(done, ['complete', 'error'])).status).toBe('complete');
      const cancelled = await worker.queue(steady, 'sleep 30');
      await worker.waitFor(cancelled, ['running']);
      await server.http.post(worker.path(`/tasks/${cancelled}/cancel`));
      await worker.waitFor(cancelled, ['cancelled']);
      // eslint-disable-next-line no-restricted-syntax -- a fixed window is the point: nothing more may happen within it (no further retry)
      await sleep(1000);
      expect((await worker.task(done)).retry_task_id).toBeUndefined();
      expect((await worker.task(cancelled)).retry_task_id).toBeUndefined();
      expect(await tasksOf(steady)).toHaveLength(2);
    },
    scaled(30000),
  );
});

describe('retry by hand', () => {
  withRunner('direct', { steady: { retries: 3 } });
  it(
    'queues a new task linked both ways, with the given delay',
    async () => {
      const id = await worker.queue('steady', 'exit 0');
      await worker.waitFor(id, ['complete']);
      const response = await server.http.post(worker.path(`/tasks/${id}/retry`), { delay: 1 });
      expect(response.status).toBe(200);
      const retryId = response.body.tasks[0].id;
      expect((await worker.task(id)).retry_task_id).toBe(retryId);
      const retried = await worker.waitFor(retryId, ['complete']);
      expect(retried).toMatchObject({ original_task_id: id, retry_count: '1', delay: 1 });
    },
    scaled(20000),
  );

  it(
    'retries a running task too (Java client: {"delay": 0}), leaving it running',
    async () => {
      const id = await worker.queue('steady', 'sleep 30');
      await worker.waitFor(id, ['running']);
      const response = await server.http.post(worker.path(`/tasks/${id}/retry`), undefined, {
        raw: '{"delay":0}',
        headers: { 'Content-Type': 'application/json' },
      });
      expect(response.status).toBe(200);
      const retryId = response.body.tasks[0].id;
      expect(await worker.task(id)).toMatchObject({ status: 'running', retry_task_id: retryId });
      expect(await worker.task(retryId)).toMatchObject({ original_task_id: id, payload: 'sleep 30' });
      for (const task of [id, retryId]) await server.http.post(worker.path(`/tasks/${task}/cancel`));
      await worker.waitFor(retryId, ['cancelled']);
    },
    scaled(20000),
  );

  it('refuses an unknown task and a bad delay', async () => {
    const id = await worker.queue('steady', 'sleep 30', { delay: 60 });
    await server.http.post(worker.path(`/tasks/${id}/cancel`));
    const unknown = await server.http.post(worker.path('/tasks/000000000000000000000000/retry'), {});
    expect(unknown.status).toBe(404);
    const badDelay = await server.http.post(worker.path(`/tasks/${id}/retry`), { delay: -1 });
    expect(badDelay.status).toBe(400);
    expect(badDelay.body.msg).toContain('delay');
  });
});
