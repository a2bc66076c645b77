import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/test-file.js';
import { useWorkerClient } from '../../helpers/worker-test-file.js';
import { createDormantSchedule, getSchedule } from '../../helpers/schedules.js';
import { FAST_WORKER_ENV } from '../../helpers/worker.js';

// Task and schedule calls as forgiving as the original service's, each sent the way an official
// client sends it. No runner: tasks stay queued unless cancelled.
const server = useTestServer(FAST_WORKER_ENV);
const worker = useWorkerClient(server, { name: 'lenient', image: 'ferrum-test/busybox', max_concurrency: 3 });

/** A POST as iron_core_python sends one without a body: empty (Content-Length 0), JSON type. */
const emptyPost = (path: string) =>
  server.http.post(worker.path(path), undefined, {
    raw: '',
    headers: { 'Content-Type': 'application/json' },
  });

/** A POST as iron_core_ruby sends one without options: the JSON of an empty hash. */
const rubyPost = (path: string) =>
  server.http.post(worker.path(path), undefined, { raw: '{}', headers: { 'Content-Type': 'application/json' } });

describe('retry', () => {
  it('retries a queued task (Python client: {"delay": 1}) as a new linked task', async () => {
    const id = await worker.queue('lenient', 'first', { delay: 3600 });
    const response = await server.http.post(worker.path(`/tasks/${id}/retry`), undefined, {
      raw: JSON.stringify({ delay: 1 }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.status).toBe(200);
    const retryId = response.body.tasks[0].id;
    expect(retryId).not.toBe(id);
    const [old, retried] = [await worker.task(id), await worker.task(retryId)];
    expect(old).toMatchObject({ status: 'queued', retry_task_id: retryId });
    expect(retried).toMatchObject({ status: 'queued', original_task_id: id, payload: 'first', delay: 1 });
  });

  it('retries a cancelled task (Ruby client: {"delay": 0})', async () => {
    const id = await worker.queue('lenient', 'second', { delay: 3600 });
    await rubyPost(`/tasks/${id}/cancel`);
    const response = await server.http.post(worker.path(`/tasks/${id}/retry`), { delay: 0 });
    expect(response.status).toBe(200);
    expect(await worker.task(response.body.tasks[0].id)).toMatchObject({ status: 'queued', original_task_id: id });
  });
});

describe('progress', () => {
  it('is accepted while the task is queued (Python client: percent and an empty msg)', async () => {
    const id = await worker.queue('lenient', 'p', { delay: 3600 });
    const response = await server.http.post(worker.path(`/tasks/${id}/progress`), undefined, {
      raw: JSON.stringify({ percent: 25, msg: '' }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(await worker.task(id)).toMatchObject({ status: 'queued', percent: 25 });
  });

  it('is refused once the task has ended', async () => {
    const id = await worker.queue('lenient', 'p', { delay: 3600 });
    await emptyPost(`/tasks/${id}/cancel`);
    const response = await server.http.post(worker.path(`/tasks/${id}/progress`), { percent: 50 });
    expect(response.status).toBe(400);
    expect(response.body.msg).toBe('Progress is for queued or running tasks: this one is cancelled');
  });
});

describe('cancelling what has already ended', () => {
  it('answers 200 for a task cancelled twice (Python then Ruby client) and changes nothing', async () => {
    const id = await worker.queue('lenient', 'c', { delay: 3600 });
    const first = await emptyPost(`/tasks/${id}/cancel`);
    expect(first.status).toBe(200);
    const cancelled = await worker.task(id);
    expect(cancelled.status).toBe('cancelled');
    const again = await rubyPost(`/tasks/${id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body.msg).toBe('Cancelled');
    expect(await worker.task(id)).toEqual(cancelled);
  });

  it('answers 200 for a cancelled schedule and changes nothing', async () => {
    const id = await createDormantSchedule(worker, { code_name: 'lenient', payload: 's', run_every: 3600 });
    expect((await emptyPost(`/schedules/${id}/cancel`)).status).toBe(200);
    const cancelled = await getSchedule(worker, id);
    const again = await rubyPost(`/schedules/${id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body.msg).toBe('Cancelled');
    expect(await getSchedule(worker, id)).toEqual(cancelled);
  });

  it('still answers 404 for a task or schedule that does not exist', async () => {
    expect((await emptyPost('/tasks/000000000000000000000000/cancel')).status).toBe(404);
    expect((await emptyPost('/schedules/000000000000000000000000/cancel')).status).toBe(404);
  });

  it('counts only the tasks it really cancelled in cancel_all', async () => {
    await worker.upload({ name: 'counted', image: 'ferrum-test/busybox' });
    const [ended, waiting] = [await worker.queue('counted', 'a', { delay: 3600 }), await worker.queue('counted', 'b')];
    await emptyPost(`/tasks/${ended}/cancel`);
    const codeId = (await worker.task(waiting)).code_id;
    const response = await emptyPost(`/codes/${codeId}/cancel_all`);
    expect(response.body.msg).toBe('Cancelled 1 tasks');
  });
});

describe('a paused package', () => {
  it('shows max_concurrency -1 in get and list while paused, its own value once resumed', async () => {
    const codeId = (await worker.task(await worker.queue('lenient', 'x', { delay: 3600 }))).code_id;
    const shown = async () => ({
      one: (await server.http.get(worker.path(`/codes/${codeId}`))).body.max_concurrency,
      listed: (await server.http.get(worker.path('/codes'))).body.codes.find((code: any) => code.id === codeId)
        .max_concurrency,
    });
    expect(await shown()).toEqual({ one: 3, listed: 3 });
    expect((await rubyPost(`/codes/${codeId}/pause_task_queue`)).body.msg).toBe('Paused');
    expect(await shown()).toEqual({ one: -1, listed: -1 });
    expect((await rubyPost(`/codes/${codeId}/resume_task_queue`)).body.msg).toBe('Resumed');
    expect(await shown()).toEqual({ one: 3, listed: 3 });
  });
});
