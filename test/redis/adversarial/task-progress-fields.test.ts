import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { useHardenedServer } from '../../helpers/adversarial/hardened-server.js';
import { scaled } from '../../helpers/pace.js';
import { WorkerClient, zipOf } from '../../helpers/worker.js';

// A progress report sets percent and msg, nothing else: any other key of its body (found by the
// generated requests of test/redis/generated) once went into the task record as a field, an
// object one failing as a 500, a `status` one overwriting the task's status.

const server = useHardenedServer();
const tenant = useTenant(server, 'progress');
let worker: WorkerClient;
let taskId: string;

beforeAll(async () => {
  worker = new WorkerClient(tenant.http, tenant.projectId);
  await worker.upload({ name: 'job', image: 'busybox', command: 'true' }, await zipOf({ 'x.txt': 'x' }));
  taskId = await worker.queue('job', '');
}, scaled(60_000));

describe('task progress', () => {
  it('sets percent and msg and ignores every other key of the body', async () => {
    const progress = await tenant.http.post(worker.path(`/tasks/${taskId}/progress`), {
      percent: 40,
      msg: 'working',
      status: 'complete',
      project_id: 'someone-else',
      x: { toString: '' },
    });
    expect(progress.status, progress.text).toBe(200);
    const task = await worker.task(taskId);
    expect(task).toMatchObject({ status: 'queued', percent: 40, msg: 'working', project_id: tenant.projectId });
    const record = await server.running.ctx.redis.hgetall(
      server.running.ctx.worker.keys.task(tenant.projectId, taskId),
    );
    expect(record).not.toHaveProperty('x');
    expect(record.status).toBe('queued');
  });
});
