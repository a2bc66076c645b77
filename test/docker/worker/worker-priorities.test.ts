import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runner } from '../../../runner/runner.js';
import type { TestServer } from '../../helpers/server.js';
import { createCluster, RUNNER_MODES, startRunner, startWorkerServer, WorkerClient } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';

let server: TestServer;
let worker: WorkerClient;

beforeAll(async () => {
  server = await startWorkerServer();
  worker = new WorkerClient(server.http, server.projectId);
  await worker.upload({ name: 'ranked', image: 'ferrum-test/busybox', command: 'sh -c "$(cat $PAYLOAD_FILE)"' });
}, scaled(30000));

afterAll(async () => {
  await server?.stop();
});

describe.each(RUNNER_MODES)('priorities (%s runner)', (mode) => {
  let runner: Runner;
  let cluster = '';
  beforeAll(async () => {
    cluster = await createCluster(server.http, `ranked-${mode}`);
    // One slot: tasks start one at a time, in the order the queue hands them out.
    runner = await startRunner(server, { FERRUM_RUNNER_SLOTS: '1', FERRUM_RUNNER_CLUSTER: cluster }, { mode });
  }, scaled(30000));
  afterAll(async () => {
    await runner?.stop();
  });

  it(
    'starts a higher priority task queued later first; equal priorities in queue order',
    async () => {
      const blocker = await worker.queue('ranked', 'sleep 1', { cluster });
      await worker.waitFor(blocker, ['running']);
      const queued: [string, number][] = [
        ['low-1', 0],
        ['low-2', 0],
        ['high-1', 2],
        ['mid-1', 1],
        ['high-2', 2],
        ['mid-2', 1],
      ];
      const ids = new Map<string, string>();
      for (const [name, priority] of queued)
        ids.set(await worker.queue('ranked', `echo ${name}`, { priority, cluster }), name);
      const tasks = [];
      for (const id of ids.keys()) tasks.push(await worker.waitFor(id, ['complete', 'error'], 30000));
      const started = tasks
        .sort((a, b) => Date.parse(a.start_time) - Date.parse(b.start_time))
        .map((task) => ids.get(task.id));
      expect(started).toEqual(['high-1', 'high-2', 'mid-1', 'mid-2', 'low-1', 'low-2']);
    },
    scaled(40000),
  );
});
