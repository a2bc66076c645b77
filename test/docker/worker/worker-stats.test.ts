import { beforeAll, describe, expect, it, vi } from 'vitest';
import { useRunner, workerTestFile } from '../../helpers/worker-test-file.js';
import { scaled } from '../../helpers/pace.js';

const { server, worker } = workerTestFile();
useRunner(server);
let codeId: string;
let otherCodeId: string;

const shell = 'sh -c "$(cat $PAYLOAD_FILE)"';
const DAY = 24 * 3600;
const zero = { queued: 0, preparing: 0, running: 0, complete: 0, error: 0, cancelled: 0, timeout: 0 };

beforeAll(async () => {
  codeId = await worker.upload({ name: 'counted', image: 'ferrum-test/busybox', command: shell });
  otherCodeId = await worker.upload({ name: 'other', image: 'ferrum-test/busybox', command: shell });

  // Two days ago (the server runs in this process, so its clock moves too): one cancelled task.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() - 2 * DAY * 1000);
  const old = await worker.queue('counted', 'exit 0', { delay: 3600 });
  await server.http.post(worker.path(`/tasks/${old}/cancel`));
  vi.useRealTimers();

  // Now: two complete, one error, one cancelled, one still queued; one task of another package.
  const ids = await Promise.all([
    worker.queue('counted', 'exit 0'),
    worker.queue('counted', 'exit 0'),
    worker.queue('counted', 'exit 1'),
    worker.queue('other', 'exit 0'),
  ]);
  const cancelled = await worker.queue('counted', 'exit 0', { delay: 3600 });
  await server.http.post(worker.path(`/tasks/${cancelled}/cancel`));
  await worker.queue('counted', 'exit 0', { delay: 3600 });
  for (const id of ids) await worker.waitFor(id, ['complete', 'error']);
}, scaled(60000));

const stats = (query = '', id = codeId) => server.http.get(worker.path(`/codes/${id}/stats${query}`));
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('code package stats', () => {
  it('counts by status the tasks changed in the last 24 hours by default', async () => {
    const response = await stats();
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...zero, queued: 1, complete: 2, error: 1, cancelled: 1 });
    expect((await stats('', otherCodeId)).body).toEqual({ ...zero, complete: 1 });
  });

  it('counts over start_date..end_date (epoch seconds, on the last change)', async () => {
    const now = nowSeconds();
    expect((await stats(`?start_date=0&end_date=${now + 10}`)).body).toEqual({
      ...zero,
      queued: 1,
      complete: 2,
      error: 1,
      cancelled: 2,
    });
    expect((await stats(`?start_date=${now - 3 * DAY}&end_date=${now - DAY}`)).body).toEqual({ ...zero, cancelled: 1 });
    expect((await stats(`?start_date=${now + 60}`)).body).toEqual(zero);
    expect((await stats(`?end_date=${now - DAY}`)).body).toEqual({ ...zero, cancelled: 1 });
    expect((await stats(`?start_date=${now - DAY}`)).body).toEqual({
      ...zero,
      queued: 1,
      complete: 2,
      error: 1,
      cancelled: 1,
    });
  });

  it('refuses bad dates and an unknown package', async () => {
    const reversed = await stats('?start_date=200&end_date=100');
    expect(reversed.status).toBe(400);
    expect(reversed.body.msg).toBe('start_date must not be after end_date');
    const word = await stats('?start_date=yesterday');
    expect(word.status).toBe(400);
    expect(word.body.msg).toContain('start_date');
    const negative = await stats('?end_date=-5');
    expect(negative.status).toBe(400);
    expect(negative.body.msg).toContain('end_date');
    const unknown = await stats('', '000000000000000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.msg).toBeTruthy();
  });
});
