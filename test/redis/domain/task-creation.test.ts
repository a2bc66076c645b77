import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus } from '../../../src/core/bus.js';
import { loadConfig } from '../../../src/core/config.js';
import { openWorkerServices, type WorkerServices } from '../../../src/worker/services.js';
import { LIMITS } from '../../../src/worker/types.js';
import { useSharedRedis } from '../../helpers/shared-redis.js';

// Queueing tasks as the domain rules it, on the worker's shared Redis (no HTTP, no runner).
const shared = useSharedRedis();
let worker: WorkerServices;
const PROJECT = 'tasks-project';
const request = (payload = '{}', more: Record<string, unknown> = {}) => ({ code_name: 'job', payload, ...more });

beforeAll(async () => {
  const config = loadConfig({ REDIS_URL: shared.url, LOG_LEVEL: 'warn' });
  worker = openWorkerServices({
    config,
    projectQuotas: async () => config.quotas,
    redis: shared.redis,
    redisUrl: shared.url,
    keys: shared.keys,
    bus: new EventBus(shared.connect('subscriber'), shared.redis),
  });
  await worker.codes.upload(
    PROJECT,
    { name: 'job', settings: { image: 'busybox', command: 'true', priority: 2 } },
    1e6,
  );
});
afterAll(async () => worker?.close());

describe('queueing tasks', () => {
  it("fills what the request leaves out from the code package and the platform's defaults", async () => {
    const [task] = await worker.tasks.queue(PROJECT, [request()]);
    expect(task).toMatchObject({
      status: 'queued',
      code_name: 'job',
      priority: 2,
      timeout: LIMITS.maxTimeout,
      delay: 0,
      cluster: 'default',
      payload: '{}',
    });
    expect(await worker.taskStore.get(PROJECT, task!.id)).toMatchObject({ status: 'queued', priority: 2 });
    expect(await worker.distribution.queuedCount('default')).toBeGreaterThanOrEqual(1);
  });

  it('keeps what the request gives: priority, timeout, delay, cluster and label', async () => {
    const [task] = await worker.tasks.queue(PROJECT, [
      request('{}', { priority: 0, timeout: 30, delay: 60, cluster: 'farm', label: 'nightly' }),
    ]);
    expect(task).toMatchObject({ priority: 0, timeout: 30, delay: 60, cluster: 'farm', label: 'nightly' });
    expect(await worker.distribution.queuedCount('farm')).toBe(1);
  });

  it('takes a payload of exactly the limit and refuses one byte more, naming the field', async () => {
    const atLimit = 'x'.repeat(LIMITS.payloadBytes);
    await expect(worker.tasks.queue(PROJECT, [request(atLimit)])).resolves.toHaveLength(1);
    await expect(worker.tasks.queue(PROJECT, [request(atLimit + 'x')])).rejects.toMatchObject({
      statusCode: 400,
      message: `payload must be at most ${LIMITS.payloadBytes} bytes`,
    });
    // Multibyte characters count as their UTF-8 bytes.
    await expect(worker.tasks.queue(PROJECT, [request('é'.repeat(LIMITS.payloadBytes / 2 + 1))])).rejects.toMatchObject(
      { statusCode: 400 },
    );
  });

  it('queues every task of a request or none: a bad payload or an unknown code leaves nothing behind', async () => {
    const before = await worker.distribution.queuedCount('batch');
    await expect(
      worker.tasks.queue(PROJECT, [
        request('{}', { cluster: 'batch' }),
        request('x'.repeat(LIMITS.payloadBytes + 1), { cluster: 'batch' }),
      ]),
    ).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/^tasks\[1\]\.payload must be at most/),
    });
    await expect(
      worker.tasks.queue(PROJECT, [request('{}', { cluster: 'batch' }), { code_name: 'missing', payload: '{}' }]),
    ).rejects.toMatchObject({ statusCode: 404, message: 'Code package not found: missing' });
    expect(await worker.distribution.queuedCount('batch')).toBe(before);
  });

  it('cancels a queued task once: its job leaves the queue; cancelling again changes nothing', async () => {
    const [task] = await worker.tasks.queue(PROJECT, [request('{}', { cluster: 'cancels' })]);
    expect(await worker.tasks.cancel(PROJECT, task!.id)).toBe(true);
    expect(await worker.tasks.cancel(PROJECT, task!.id)).toBe(false);
    expect((await worker.taskStore.get(PROJECT, task!.id)).status).toBe('cancelled');
    expect(await worker.distribution.queuedCount('cancels')).toBe(0);
    await expect(worker.tasks.cancel(PROJECT, '0123456789abcdef01234567')).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe("a gateway runner's heartbeat read", () => {
  it('reads the status and runner of tasks of several projects at once, null for one gone', async () => {
    const [queued] = await worker.tasks.queue(PROJECT, [request()]);
    const [taken] = await worker.tasks.queue(PROJECT, [request()]);
    const log = { info: () => {}, warn: () => {} };
    expect(await worker.runnerTasks.take(PROJECT, taken!.id, 'runner-1', 60_000, log)).toMatchObject({ id: taken!.id });
    const states = await worker.taskStore.runStates([
      { project_id: PROJECT, task_id: queued!.id },
      { project_id: PROJECT, task_id: taken!.id },
      { project_id: 'another-project', task_id: taken!.id },
    ]);
    expect(states).toEqual([{ status: 'queued', runner: '' }, { status: 'preparing', runner: 'runner-1' }, null]);
    expect(await worker.taskStore.runStates([])).toEqual([]);
  });
});
