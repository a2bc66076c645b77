import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { GatewayBackend } from '../../../runner/backend/gateway-backend.js';
import { loadConfig } from '../../../src/core/config.js';
import type { RunnerInstance } from '../../../src/worker/clusters/runners/runner-registry.js';
import type { Task } from '../../../src/worker/types.js';
import { eventually } from '../../helpers/eventually.js';
import { scaled } from '../../helpers/pace.js';
import { useTestServer } from '../../helpers/test-file.js';
import { useWorkerClient } from '../../helpers/worker-test-file.js';
import { createCluster, createRunnerToken, FAST_WORKER_ENV } from '../../helpers/worker.js';

// A gateway runner's task polls through the real runner API, without Docker: the test runs its tasks.

const server = useTestServer(FAST_WORKER_ENV);
const worker = useWorkerClient(server, { name: 'shell', image: 'ferrum-test/busybox', command: 'sh' });

describe('a gateway runner the installation no longer knows', { timeout: scaled(60_000) }, () => {
  it('registers again as soon as a poll is refused for it, and takes the next task at once', async () => {
    const cluster = await createCluster(server.http, 'lapsed');
    const { token } = await createRunnerToken(server, cluster);
    const config = loadConfig({
      ...FAST_WORKER_ENV,
      FERRUM_ENCRYPTION_KEY: '',
      FERRUM_RUNNER_SLOTS: '1',
      FERRUM_RUNNER_CLUSTER: cluster,
      FERRUM_API_URL: server.url,
      FERRUM_RUNNER_TOKEN: token,
    });
    const backend = new GatewayBackend(config, config.runner.gateway!, 'lapsed-runner', pino({ level: 'silent' }));
    const instance: RunnerInstance = {
      instance_id: 'lapsed-runner',
      cluster,
      hostname: 'test',
      slots: 1,
      busy: 0,
      version: 'test',
      created_at: Date.now(),
      updated_at: Date.now(),
      expires_at: 0,
    };
    const taken: Task[] = [];
    let registrations = 0;
    // Never registered, as after a lapse: its first poll is refused (409), and its heartbeat timer
    // (not started here) would register it only at its next beat; the poll registers it at once.
    await backend.startTaking({
      run: async (task) => void taken.push(task),
      cancel: () => undefined,
      reregister: async () => {
        registrations++;
        await backend.heartbeat(instance, []);
      },
    });
    try {
      const taskId = await worker.queue('shell', 'echo', { cluster });
      await eventually(() => taken.length > 0, 10_000, 'the task taken by the runner');
      expect(taken.map((task) => task.id)).toEqual([taskId]);
      expect(registrations).toBe(1);
    } finally {
      await backend.stopTaking();
      await backend.close();
    }
  });
});
