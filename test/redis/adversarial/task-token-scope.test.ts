import { beforeAll, expect, it } from 'vitest';
import { KeySpace } from '../../../src/core/redis.js';
import { WorkerKeys } from '../../../src/worker/keys.js';
import { TaskTokens } from '../../../src/worker/tasks/running/task-tokens.js';
import type { HttpClient } from '../../helpers/http.js';
import { useRedis, useTestServer } from '../../helpers/test-file.js';
import { WorkerClient } from '../../helpers/worker.js';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { scaled } from '../../helpers/pace.js';

// Code running in a task holds its task's token: it gets exactly what "How tasks run" (docs/tasks-and-functions.md)
// states (queues, caches, code packages, queueing and reading tasks, its own progress), not the
// project owner's other powers: registry credentials, schedules that outlive the task, task control.
const server = useTestServer();
const redis = useRedis(server);
const owner = useTenant(server, 'task-owner');
let worker: WorkerClient;
let asTask: HttpClient;
let taskId: string;

beforeAll(async () => {
  worker = new WorkerClient(owner.http, owner.projectId);
  await worker.upload({ name: 'job', image: 'busybox', command: 'true' });
  taskId = await worker.queue('job', 'x', { delay: 3600 });
  const tokens = new TaskTokens(redis, new WorkerKeys(new KeySpace(server.config.keyPrefix)));
  asTask = server.http.withToken(await tokens.issue({ project_id: owner.projectId, task_id: taskId }, 60_000));
}, scaled(60_000));

it('cannot replace the registry credentials, make schedules or control tasks', async () => {
  const refused = [
    await asTask.post(worker.path('/credentials'), { username: 'u', password: 'p', serveraddress: 'r.example.com' }),
    await asTask.post(worker.path('/schedules'), {
      schedules: [{ code_name: 'job', payload: '', run_every: 3600 }],
    }),
    await asTask.get(worker.path('/schedules')),
    await asTask.post(worker.path(`/tasks/${taskId}/cancel`)),
    await asTask.post(worker.path(`/tasks/${taskId}/retry`), {}),
    await asTask.get(`/1/projects/${owner.projectId}/history`),
  ];
  const code = (await owner.http.get(worker.path('/codes'))).body.codes[0];
  for (const action of ['pause_task_queue', 'resume_task_queue', 'cancel_all'])
    refused.push(await asTask.post(worker.path(`/codes/${code.id}/${action}`)));
  for (const answer of refused) {
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body.msg).toContain('A task token is valid only for');
  }
  expect((await owner.http.get(worker.path('/schedules'))).body.schedules).toEqual([]);
  expect((await owner.http.get(worker.path(`/tasks/${taskId}`))).body.status).toBe('queued');
});

it('still does what docs/tasks-and-functions.md promises', async () => {
  const queue = `/3/projects/${owner.projectId}/queues/from-task/messages`;
  expect((await asTask.post(queue, { messages: [{ body: 'hi' }] })).status).toBe(201);
  expect((await asTask.put(`/1/projects/${owner.projectId}/caches/c/items/k`, { value: 1 })).status).toBe(200);
  expect((await asTask.get(worker.path('/codes'))).status).toBe(200);
  expect((await asTask.post(worker.path('/tasks'), { tasks: [{ code_name: 'job', payload: 'y' }] })).status).toBe(200);
  expect((await asTask.get(worker.path('/tasks'))).status).toBe(200);
});
