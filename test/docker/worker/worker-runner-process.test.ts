import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runner } from '../../../runner/runner.js';
import { freeLoopbackPort } from '../../../src/core/free-port.js';
import { KeySpace, type RedisClient } from '../../../src/core/redis.js';
import { sleep } from '../../../src/core/time.js';
import { WorkerKeys } from '../../../src/worker/keys.js';
import { RunnerRegistry } from '../../../src/worker/clusters/runners/runner-registry.js';
import { eventually } from '../../helpers/eventually.js';
import { createCluster, RUNNER_MODES, startRunner } from '../../helpers/worker.js';
import { runnerProcessesOf } from '../../helpers/runner-process.js';
import { workerTestFile } from '../../helpers/worker-test-file.js';
import { scaled } from '../../helpers/pace.js';

const { server, worker } = workerTestFile();
const spawnRunner = runnerProcessesOf(server);
let redis: RedisClient;
let registry: RunnerRegistry;
const runners: Runner[] = [];

/** The runner's structured log lines about one task, in order. */
function taskLogLines(output: string, taskId: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.task === taskId);
}

function containersOf(taskId: string): string {
  return execFileSync('docker', ['ps', '-aq', '--filter', `label=ferrum.task=${taskId}`])
    .toString()
    .trim();
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  await eventually(check, timeoutMs, what);
}

beforeAll(async () => {
  redis = server.openRedis();
  registry = new RunnerRegistry(redis, new WorkerKeys(new KeySpace(server.config.keyPrefix)));
  await worker.upload({ name: 'shell', image: 'ferrum-test/busybox', command: 'sh -c "$(cat $PAYLOAD_FILE)"' });
});

afterAll(async () => {
  for (const runner of runners) await runner.stop();
  await redis?.quit();
});

describe('a runner process', () => {
  it('registers as an instance of its cluster, counts busy slots and serves /metrics', async () => {
    const port = await freeLoopbackPort();
    const { child, exited, output } = await spawnRunner(clusters.counting, { port });
    await until(
      'the runner to register',
      async () => (await registry.runnersOf(clusters.counting)).runners_total === 4,
      20000,
    );
    expect((await registry.runnersOf(clusters.counting)).runners_available).toBe(4);
    const id = await worker.queue('shell', 'sleep 30', { cluster: clusters.counting });
    await worker.waitFor(id, ['running']);
    await until('a busy slot', async () => (await registry.runnersOf(clusters.counting)).runners_available === 3, 5000);
    const { instances } = await registry.runnersOf(clusters.counting);
    expect(instances).toHaveLength(1);
    expect(instances[0]).toMatchObject({ cluster: clusters.counting, slots: 4, busy: 1 });
    await server.http.post(worker.path(`/tasks/${id}/cancel`));
    await worker.waitFor(id, ['cancelled']);
    const done = await worker.queue('shell', 'echo done', { cluster: clusters.counting });
    await worker.waitFor(done, ['complete']);
    // The slot is given back just after the task's record is final.
    let metrics = '';
    await until(
      'the slot to be free again',
      async () =>
        (metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).includes('state="free"} 4'),
      5000,
    );
    expect(metrics).toContain(`ferrum_runner_tasks_total{cluster="${clusters.counting}",status="complete"} 1`);
    expect(metrics).toContain('ferrum_runner_slots{state="free"} 4');
    expect(metrics).toMatch(/ferrum_worker_task_wait_seconds_count 2/);
    expect(metrics).toMatch(/ferrum_worker_task_run_seconds_count\{status="complete"\} 1/);
    // The line is written just after the count, and reaches this process through a pipe.
    await until('the task finished line', async () => taskLogLines(output(), done).length === 2, 5000);
    expect(taskLogLines(output(), done)).toEqual([
      expect.objectContaining({ msg: 'task started', project: server.projectId, code: 'shell' }),
      expect.objectContaining({ msg: 'task finished', status: 'complete', run_ms: expect.any(Number) }),
    ]);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect((await registry.runnersOf(clusters.counting)).runners_total).toBe(0);
  });
});

describe.each(RUNNER_MODES)('a %s runner process', (mode) => {
  let failover = '';
  let draining = '';
  beforeAll(async () => {
    failover = await createCluster(server.http, `failover-${mode}`);
    draining = await createCluster(server.http, `draining-${mode}`);
  });

  it('killed with SIGKILL mid-task: the task ends as error and its container is removed', async () => {
    const { child, exited } = await spawnRunner(failover, { mode });
    const id = await worker.queue('shell', 'echo begin; sleep 60', { cluster: failover });
    await worker.waitFor(id, ['running'], 20000);
    // `running` comes just before the container starts: wait for its first output.
    await until('the task to print', async () => (await worker.log(id)) === 'begin\n', 20000);
    child.kill('SIGKILL');
    await exited;
    expect(containersOf(id)).not.toBe('');

    const started = Date.now();
    runners.push(await startRunner(server, { FERRUM_RUNNER_CLUSTER: failover }, { mode }));
    const task = await worker.waitFor(id, ['error', 'complete', 'cancelled', 'queued'], 20000);
    expect(task.status).toBe('error');
    expect(task.msg).toMatch(/runner running this task \(\w+\) stopped before the task finished/);
    await until('the orphan container to be removed', () => containersOf(id) === '', 10000);
    expect(Date.now() - started).toBeLessThan(scaled(20000));

    // The cluster works on: the next task runs on the new runner.
    const next = await worker.queue('shell', 'echo after', { cluster: failover });
    expect((await worker.waitFor(next, ['complete', 'error'])).status).toBe('complete');
  });

  it('on SIGTERM finishes its running task, takes no new one and exits', async () => {
    // The drain time bounds how long the runner waits for its task: it must not cut short, on a
    // busy machine, a task of 2 s that is still starting its container (the runner exits as
    // soon as the task ends, so a longer bound costs nothing).
    const { child, exited, output } = await spawnRunner(draining, {
      mode,
      env: { FERRUM_RUNNER_DRAIN_MS: String(scaled(20_000)) },
    });
    const running = await worker.queue('shell', 'sleep 2; echo finished', { cluster: draining });
    await worker.waitFor(running, ['running'], 20000);
    child.kill('SIGTERM');
    // The runner has the SIGTERM (and stops taking tasks) before the next task is queued.
    await until('the runner to drain', () => output().includes('"msg":"draining"'), 10000);
    const later = await worker.queue('shell', 'echo never', { cluster: draining });
    const code = await exited;
    expect(code, output()).toBe(0);
    expect((await worker.task(running)).status).toBe('complete');
    expect(await worker.log(running)).toBe('finished\n');
    // eslint-disable-next-line no-restricted-syntax -- a fixed window is the point: the exited runner must take nothing within it
    await sleep(500);
    expect((await worker.task(later)).status).toBe('queued');
    await server.http.post(worker.path(`/tasks/${later}/cancel`));
  });
});

/** Tasks go only to clusters that exist: one per test that runs a runner of its own. */
const clusters = { counting: '' };
beforeAll(async () => {
  for (const name of Object.keys(clusters) as (keyof typeof clusters)[])
    clusters[name] = await createCluster(server.http, name);
});
