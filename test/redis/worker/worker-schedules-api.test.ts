import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../helpers/server.js';
import {
  createDormantSchedule,
  createSchedule,
  getSchedule,
  waitForSchedule,
  waitForTasks,
} from '../../helpers/schedules.js';
import { startWorkerServer, WorkerClient } from '../../helpers/worker.js';

// The production floor (run_every ≥ 60) applies here; no runner, so queued tasks stay queued.
let server: TestServer;
let worker: WorkerClient;

beforeAll(async () => {
  server = await startWorkerServer();
  worker = new WorkerClient(server.http, server.projectId);
  await worker.upload({ name: 'hourly', image: 'ferrum-test/busybox' });
});

afterAll(async () => {
  await server?.stop();
});

const post = (body: unknown, headers?: Record<string, string>) =>
  server.http.post(worker.path('/schedules'), body, { headers });

describe('creating and reading schedules', () => {
  it('creates a batch and reads every field back', async () => {
    const start = new Date(Date.now() + 3_600_000).toISOString();
    const end = new Date(Date.now() + 86_400_000).toISOString();
    // Fields a schedule keeps as sent.
    const stored = { priority: 2, timeout: 120, cluster: 'default', task_delay: 30, label: 'lbl', name: 'nightly' };
    const response = await post({
      schedules: [
        {
          code_name: 'hourly',
          payload: '{"a":1}',
          start_at: start,
          run_every: 3600,
          end_at: end,
          ...stored,
        },
        { code_name: 'hourly', payload: 'two', start_at: start, run_every: 60, run_times: 4 },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body.msg).toBe('Scheduled');
    expect(response.body.schedules).toHaveLength(2);
    const first = await getSchedule(worker, response.body.schedules[0].id);
    expect(first).toMatchObject({
      project_id: server.projectId,
      code_name: 'hourly',
      payload: '{"a":1}',
      status: 'scheduled',
      run_every: 3600,
      ...stored,
      run_count: 0,
      error_count: 0,
    });
    expect(Date.parse(first.start_at)).toBe(Date.parse(start));
    expect(Date.parse(first.next_start)).toBe(Date.parse(start));
    expect(Date.parse(first.end_at)).toBe(Date.parse(end));
    expect(first.last_run_time).toBeUndefined();
    const second = await getSchedule(worker, response.body.schedules[1].id);
    expect(second).toMatchObject({ run_every: 60, run_times: 4, status: 'scheduled' });
  });

  it('lists newest first with page and per_page', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(await createDormantSchedule(worker, { code_name: 'hourly', payload: `p${i}` }));
    const firstPage = await server.http.get(worker.path('/schedules?per_page=2'));
    expect(firstPage.status).toBe(200);
    expect(firstPage.body.schedules.map((s: any) => s.id)).toEqual([ids[2], ids[1]]);
    const secondPage = await server.http.get(worker.path('/schedules?per_page=2&page=1'));
    expect(secondPage.body.schedules[0].id).toBe(ids[0]);
  });

  it('runs a one-off schedule once at start_at and completes it', async () => {
    // Fields its task takes as they are (task_delay becomes the task's delay).
    const taskFields = { priority: 1, timeout: 99, label: 'from-schedule' };
    const id = await createSchedule(worker, { code_name: 'hourly', payload: 'once', ...taskFields, task_delay: 5 });
    const done = await waitForSchedule(worker, id, (s) => s.status === 'complete');
    expect(done).toMatchObject({ run_count: 1, error_count: 0, run_times: 1 });
    expect(done.next_start).toBeUndefined();
    expect(typeof done.last_run_time).toBe('string');
    const tasks = await waitForTasks(worker, 'hourly', id, 1);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ status: 'queued', payload: 'once', ...taskFields, delay: 5, schedule_id: id });
  });

  it('cancels a schedule: no more runs, and a second cancel changes nothing', async () => {
    const id = await createDormantSchedule(worker, { code_name: 'hourly', payload: 'x', run_every: 60 });
    const cancel = await server.http.post(worker.path(`/schedules/${id}/cancel`));
    expect(cancel.status).toBe(200);
    expect(cancel.body.msg).toBe('Cancelled');
    const schedule = await getSchedule(worker, id);
    expect(schedule.status).toBe('cancelled');
    expect(schedule.next_start).toBeUndefined();
    const again = await server.http.post(worker.path(`/schedules/${id}/cancel`));
    expect(again.status).toBe(200);
    expect((await getSchedule(worker, id)).updated_at).toBe(schedule.updated_at);
  });

  it('keeps cron schedules in their time zone', async () => {
    const id = await createSchedule(worker, {
      code_name: 'hourly',
      payload: 'c',
      cron: '30 9 * * *',
      timezone: 'America/New_York',
      start_at: '2099-07-01T00:00:00Z',
    });
    const schedule = await getSchedule(worker, id);
    // 09:30 in New York in July is 13:30 UTC (daylight saving time).
    expect(Date.parse(schedule.next_start)).toBe(Date.parse('2099-07-01T13:30:00Z'));
    expect(schedule).toMatchObject({ cron: '30 9 * * *', timezone: 'America/New_York', status: 'scheduled' });
  });
});

describe('refusing bad input', () => {
  it('refuses a body without the JSON content type (406)', async () => {
    const response = await server.http.post(worker.path('/schedules'), undefined, {
      raw: JSON.stringify({ schedules: [{ code_name: 'hourly', payload: 'x' }] }),
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(response.status).toBe(406);
    expect(response.body.msg).toMatch(/application\/json/);
  });

  it('answers 406 for missing required fields', async () => {
    for (const [body, field] of [
      [{}, 'schedules'],
      [{ schedules: [{ payload: 'x' }] }, 'code_name'],
      [{ schedules: [{ code_name: 'hourly' }] }, 'payload'],
    ] as const) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body)).toBe(406);
      expect(response.body.msg).toMatch(field);
    }
  });

  it('refuses run_every under 60 seconds with 400', async () => {
    const response = await post({ schedules: [{ code_name: 'hourly', payload: 'x', run_every: 59 }] });
    expect(response.status).toBe(400);
    expect(response.body.msg).toMatch(/run_every must be at least 60/);
  });

  it('refuses a cron expression firing more often than once a minute', async () => {
    const response = await post({ schedules: [{ code_name: 'hourly', payload: 'x', cron: '*/10 * * * * *' }] });
    expect(response.status).toBe(400);
    expect(response.body.msg).toMatch(/cron runs must be at least 60 seconds apart/);
  });

  const badFields: Array<[Record<string, unknown>, RegExp]> = [
    [{ payload: 5 }, /payload/],
    [{ start_at: 'tomorrow-ish' }, /start_at must be a date-time/],
    [{ end_at: 'not a date' }, /end_at must be a date-time/],
    [{ start_at: '2099-01-02T00:00:00Z', end_at: '2099-01-01T00:00:00Z' }, /end_at must not be before start_at/],
    [{ run_every: 'often' }, /run_every/],
    [{ run_every: 120, cron: '0 * * * *' }, /either run_every or cron/],
    [{ cron: 'every tuesday' }, /cron is not a valid cron expression/],
    [{ cron: '0 * * * *', timezone: 'Mars/Olympus' }, /timezone is not a known time zone/],
    [{ timezone: 'UTC' }, /timezone applies only to cron/],
    [{ run_times: 0 }, /run_times/],
    [{ priority: 3 }, /priority/],
    [{ timeout: 0 }, /timeout/],
    [{ timeout: 3601 }, /timeout/],
    [{ task_delay: 604801 }, /task_delay/],
    [{ cluster: 'no spaces allowed' }, /cluster/],
    [{ payload: 'x'.repeat(64 * 1024 + 1) }, /payload/],
  ];
  it.each(badFields)('refuses %j with 400', async (fields, msg) => {
    const response = await post({ schedules: [{ code_name: 'hourly', payload: 'x', ...fields }] });
    expect([400, 413]).toContain(response.status);
    expect(response.body.msg).toMatch(msg);
  });

  it('refuses an empty batch and names the element that is wrong', async () => {
    const empty = await post({ schedules: [] });
    expect(empty.status).toBe(400);
    const second = await post({
      schedules: [
        { code_name: 'hourly', payload: 'ok' },
        { code_name: 'hourly', payload: 'x', start_at: 'soon' },
      ],
    });
    expect(second.status).toBe(400);
    expect(second.body.msg).toMatch(/schedules\[1\]\.start_at/);
  });

  it('writes nothing from a batch with one bad element', async () => {
    const before = (await server.http.get(worker.path('/schedules?per_page=100'))).body.schedules.length;
    const response = await post({
      schedules: [
        { code_name: 'hourly', payload: 'ok' },
        { code_name: 'no-such-code', payload: 'x' },
      ],
    });
    expect(response.status).toBe(404);
    expect(response.body.msg).toMatch(/no-such-code/);
    expect((await server.http.get(worker.path('/schedules?per_page=100'))).body.schedules).toHaveLength(before);
  });

  it('answers 404 for an unknown schedule and 400 for bad paging', async () => {
    expect((await server.http.get(worker.path('/schedules/000000000000000000000000'))).status).toBe(404);
    expect((await server.http.post(worker.path('/schedules/000000000000000000000000/cancel'))).status).toBe(404);
    expect((await server.http.get(worker.path('/schedules?page=101'))).status).toBe(400);
    expect((await server.http.get(worker.path('/schedules?per_page=0'))).status).toBe(400);
  });

  it('answers 401 without a token', async () => {
    const response = await server.http.withToken(null).get(worker.path('/schedules'));
    expect(response.status).toBe(401);
  });
});
