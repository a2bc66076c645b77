import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runner } from '../../../runner/runner.js';
import { createCluster, RUNNER_MODES, startRunner } from '../../helpers/worker.js';
import { runnerProcessesOf } from '../../helpers/runner-process.js';
import { workerTestFile } from '../../helpers/worker-test-file.js';
import { scaled } from '../../helpers/pace.js';

const { server, worker } = workerTestFile();
const spawnRunner = runnerProcessesOf(server);
const runners: Runner[] = [];

const shell = 'sh -c "$(cat $PAYLOAD_FILE)"';
// A runner is gone, and the max_concurrency slots of its tasks free, after 3 missed beats: on a
// busy machine, beats of 300 ms came late enough for a live runner's slot to go to another task
// (2 at once for a limit of 1), and with a benchmark beside the suite, beats of 300 ms scaled
// still did. The beat and the lock follow the machine, as bounds do, with room for load spikes.
const PACE = {
  FERRUM_RUNNER_HEARTBEAT_MS: String(scaled(1000)),
  FERRUM_RUNNER_LOCK_MS: String(scaled(5000)),
};

beforeAll(async () => {
  for (const mode of RUNNER_MODES) {
    for (const [name, max] of [
      ['one-at-a-time', 1],
      ['three-at-a-time', 3],
      ['single', 1],
    ] as const)
      await worker.upload({
        name: `${name}-${mode}`,
        image: 'ferrum-test/busybox',
        command: shell,
        max_concurrency: max,
      });
  }
}, scaled(30000));

afterAll(async () => {
  await Promise.all(runners.map((runner) => runner.stop()));
});

async function queueMany(codeName: string, count: number, payload: string, cluster: string): Promise<string[]> {
  const tasks = Array.from({ length: count }, () => ({ code_name: codeName, payload, cluster }));
  const response = await server.http.post(worker.path('/tasks'), { tasks });
  expect(response.status).toBe(200);
  return response.body.tasks.map((task: { id: string }) => task.id);
}

/** The most tasks whose [start_time, end_time] overlap at one instant (an end before a start at a tie). */
function mostAtOnce(tasks: { start_time: string; end_time: string }[]): number {
  const events = tasks.flatMap((task) => [
    [Date.parse(task.start_time), 1],
    [Date.parse(task.end_time), -1],
  ]);
  events.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let now = 0;
  let most = 0;
  for (const [, step] of events) most = Math.max(most, (now += step!));
  return most;
}

async function allEnded(ids: string[]): Promise<any[]> {
  const tasks = [];
  for (const id of ids) tasks.push(await worker.waitFor(id, ['complete', 'error', 'timeout', 'cancelled'], 90000));
  return tasks;
}

describe.each(RUNNER_MODES)('max_concurrency (%s runners)', (mode) => {
  const code = (name: string) => `${name}-${mode}`;
  let limits = '';
  let gate = '';
  beforeAll(async () => {
    limits = await createCluster(server.http, `limits-${mode}`);
    gate = await createCluster(server.http, `gate-${mode}`);
    // Two runners of 4 slots each: 8 places to run, so only the gate holds tasks back.
    for (let i = 0; i < 2; i++)
      runners.push(await startRunner(server, { ...PACE, FERRUM_RUNNER_CLUSTER: limits }, { mode }));
  }, scaled(30000));

  it(
    'runs 8 tasks each of packages limited to 1 and to 3: never more at once, all complete, none failed or retried',
    async () => {
      // 8 each: every one of the 8 runner slots could take a task of either package at once, so
      // only the gate keeps them to their limits.
      const [one, three] = await Promise.all([
        queueMany(code('one-at-a-time'), 8, 'sleep 0.2', limits),
        queueMany(code('three-at-a-time'), 8, 'sleep 0.5', limits),
      ]);
      const [ranOne, ranThree] = await Promise.all([allEnded(one), allEnded(three)]);
      for (const task of [...ranOne, ...ranThree]) {
        expect(task.status).toBe('complete');
        expect(task.retry_count).toBeUndefined();
      }
      expect(mostAtOnce(ranOne)).toBe(1);
      expect(mostAtOnce(ranThree)).toBeLessThanOrEqual(3);
      // With 8 runner slots and 8 tasks of 0.5 s, the limit of 3 is actually reached.
      expect(mostAtOnce(ranThree)).toBeGreaterThanOrEqual(2);
    },
    scaled(120000),
  );

  it(
    'gives back the slot of a runner that was killed mid-task',
    async () => {
      const { child, exited } = await spawnRunner(gate, { mode, env: PACE });
      const stuck = await worker.queue(code('single'), 'echo begin; sleep 60', { cluster: gate });
      await worker.waitFor(stuck, ['running'], 30000);
      child.kill('SIGKILL');
      await exited;

      const next = await worker.queue(code('single'), 'echo after', { cluster: gate });
      runners.push(await startRunner(server, { ...PACE, FERRUM_RUNNER_CLUSTER: gate }, { mode }));
      expect((await worker.waitFor(next, ['complete', 'error'], 20000)).status).toBe('complete');
      expect((await worker.waitFor(stuck, ['error', 'complete'], 20000)).msg).toMatch(
        /stopped before the task finished/,
      );
      // The gate still holds afterwards: three more tasks never overlap.
      const after = await allEnded(await queueMany(code('single'), 3, 'sleep 0.3', gate));
      expect(after.map((task) => task.status)).toEqual(['complete', 'complete', 'complete']);
      expect(mostAtOnce(after)).toBe(1);
    },
    scaled(60000),
  );
});
