import os from 'node:os';
import type { Runner } from '../../../runner/runner.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../../helpers/browser.js';
import { useDashboard } from '../../helpers/dashboard.js';
import { createCluster, FAST_WORKER_ENV, startRunner, WorkerClient } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';

// The runners of a cluster in the dashboard: what each runs now, live, and which runner ran a task.
let runner: Runner;
let worker: WorkerClient;
let clusterId: string;
const session = useDashboard({ env: FAST_WORKER_ENV });

beforeAll(async () => {
  worker = new WorkerClient(session.server.http, session.server.projectId);
  await worker.upload({ name: 'sleeper', image: 'ferrum-test/busybox', command: 'sh -c "$(cat $PAYLOAD_FILE)"' });
  clusterId = await createCluster(session.server.http, 'watched-farm');
  runner = await startRunner(session.server, { FERRUM_RUNNER_CLUSTER: clusterId, FERRUM_RUNNER_SLOTS: '2' });
});

afterAll(async () => {
  await runner?.stop();
});

const runners = () => session.page.locator('#cluster-runners');
const runnerRow = (id: string) => runners().locator('tr', { hasText: id });

describe('dashboard: runners of a cluster', () => {
  let taskId: string;

  it("shows each runner and, refreshed live, the task it runs now with the task's code name", async () => {
    await session.page.goto(`${session.server.url}/#/clusters/${clusterId}`);
    await session.page.getByRole('heading', { name: 'Runners' }).waitFor();
    await expect.poll(() => runnerRow(runner.id).textContent(), { timeout: scaled(15_000) }).toContain('idle');
    const idle = await runnerRow(runner.id).textContent();
    expect(idle).toContain(os.hostname());
    expect(idle).toMatch(/\d+ s ago/);

    // Queued after the page was drawn: the table shows it without a reload.
    taskId = await worker.queue('sleeper', 'sleep 30', { cluster: clusterId });
    await worker.waitFor(taskId, ['running']);
    await expect.poll(() => runnerRow(runner.id).textContent(), { timeout: scaled(15_000) }).toContain(taskId);
    expect(await runnerRow(runner.id).textContent()).toContain('sleeper');
    const cells = await runnerRow(runner.id).locator('td').allTextContents();
    expect(cells.slice(3, 5)).toEqual(['2', '1']); // slots, busy
    await screenshot(session.page, 'cluster-runners');
  });

  it('links the task to its page, which names the runner and host that run it', async () => {
    await runnerRow(runner.id).getByRole('link', { name: taskId }).click();
    await session.page.getByRole('heading', { name: `Task ${taskId}` }).waitFor();
    await expect
      .poll(() => session.page.locator('#task-facts').textContent(), { timeout: scaled(15_000) })
      .toContain('Runner host');
    const facts = await session.page.locator('#task-facts').textContent();
    expect(facts).toContain(`Runner${runner.id}`);
    expect(facts).toContain(`Runner host${os.hostname()}`);
    await screenshot(session.page, 'task-runner');
  });

  it('shows the runner idle again once the task ends', async () => {
    expect((await session.server.http.post(worker.path(`/tasks/${taskId}/cancel`))).status).toBe(200);
    await session.page.goto(`${session.server.url}/#/clusters/${clusterId}`);
    await expect.poll(() => runnerRow(runner.id).textContent(), { timeout: scaled(15_000) }).toContain('idle');
    expect(await runnerRow(runner.id).textContent()).not.toContain(taskId);
  });

  it("shows a runner's own strings as text, never as markup", async () => {
    const now = Date.now();
    await session.server.running.ctx.worker.runners.heartbeat(
      {
        instance_id: 'runner-<b>bold</b>',
        cluster: clusterId,
        hostname: '<img src=x onerror="window.injected=1">',
        slots: 1,
        busy: 0,
        tasks: [],
        version: '<script>window.injected=1</script>',
        created_at: now,
        updated_at: now,
        expires_at: 0,
      },
      60_000,
    );
    await expect
      .poll(() => runnerRow('runner-<b>bold</b>').textContent(), { timeout: scaled(15_000) })
      .toContain('<img src=x onerror="window.injected=1">');
    expect(await runners().locator('img, b, script').count()).toBe(0);
    expect(await session.page.evaluate(() => (window as unknown as { injected?: number }).injected)).toBeUndefined();
  });

  it('sent no request beyond this machine', () => {
    expect(session.outside).toEqual([]);
  });
});
