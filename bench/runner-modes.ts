/**
 * Runner modes side by side: the same tasks on a direct runner (BullMQ and the scripts over
 * Redis) and on a gateway runner (the runner API over HTTP with a cluster runner token), each
 * with 4 slots on a cluster of its own, in alternating rounds so that both see the same load.
 * (a) BENCH_TASKS (default 400) tasks of a container that exits at once, queued in batches:
 *     wall time of each mode and their ratio (target: gateway ≤ 1.1× direct);
 * (b) BENCH_IDLE_TASKS (40) tasks queued one at a time on the idle runner: queue-to-start p50.
 * BENCH_SMOKE=1 runs a few tasks of each.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { startController } from '../controller/main.js';
import { Runner } from '../runner/runner.js';
import { loadConfig } from '../src/core/config.js';
import { KeySpace } from '../src/core/redis.js';
import { sleep } from '../src/core/time.js';
import { WorkerKeys } from '../src/worker/keys.js';
import { HttpClient } from '../test/helpers/http.js';
import { startTestRedis } from '../test/helpers/redis.js';
import { createCluster } from '../test/helpers/worker.js';
import { figure, sized } from './lib/report.js';

const TASKS = sized('BENCH_TASKS', 400, 4);
const IDLE_TASKS = sized('BENCH_IDLE_TASKS', 40, 2);
const ROUNDS = sized('BENCH_ROUNDS', 4, 1);
const SLOTS = 4;
const IMAGE = 'ferrum-test/busybox';
const MODES = ['direct', 'gateway'] as const;
type Mode = (typeof MODES)[number];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Bench {
  http: HttpClient;
  client: Redis;
  keys: WorkerKeys;
  projectId: string;
}

async function queueTasks(bench: Bench, cluster: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let first = 0; first < count; first += 100) {
    const tasks = Array.from({ length: Math.min(100, count - first) }, () => ({
      code_name: 'bench',
      payload: '{}',
      cluster,
    }));
    const response = await bench.http.post(`/2/projects/${bench.projectId}/tasks`, { tasks });
    if (response.status !== 200) throw new Error(`queueing failed: ${response.status} ${response.text}`);
    ids.push(...response.body.tasks.map((task: { id: string }) => task.id));
  }
  return ids;
}

async function statusOf(bench: Bench, id: string): Promise<string | null> {
  return bench.client.hget(bench.keys.task(bench.projectId, id), 'status');
}

/** Waits until every task ended; fails on one that did not complete. */
async function allEnded(bench: Bench, ids: string[]): Promise<void> {
  for (const id of ids) {
    let status = await statusOf(bench, id);
    while (status === 'queued' || status === 'preparing' || status === 'running') {
      await sleep(10);
      status = await statusOf(bench, id);
    }
    if (status !== 'complete') throw new Error(`task ${id} ended ${status}`);
  }
}

/** Milliseconds from a task's creation to its start, for tasks queued one at a time. */
async function idleLatencies(bench: Bench, cluster: string, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const [id] = await queueTasks(bench, cluster, 1);
    const key = bench.keys.task(bench.projectId, id!);
    let start: string | null = null;
    while (!(start = await bench.client.hget(key, 'start_time'))) await sleep(2);
    latencies.push(Number(start) - Number(await bench.client.hget(key, 'created_at')));
    await allEnded(bench, [id!]);
  }
  return latencies.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  execFileSync('bash', ['scripts/build-test-images.sh'], { stdio: 'inherit' });
  const redis = await startTestRedis();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-bench-'));
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    FERRUM_DATA_DIR: dataDir,
    FERRUM_BOOTSTRAP_PASSWORD: 'bench-password',
    LOG_LEVEL: 'warn',
    FERRUM_RUNNER_SLOTS: String(SLOTS),
    FERRUM_RUNNER_NETWORK: 'none',
  };
  const controller = await startController(loadConfig({ ...env, REDIS_URL: redis.url }));
  const { token, projectId } = controller.bootstrap!;
  const http = new HttpClient(controller.url, token);
  const client = new Redis(redis.url);
  const bench: Bench = { http, client, keys: new WorkerKeys(new KeySpace(controller.ctx.config.keyPrefix)), projectId };
  const runners: Runner[] = [];
  try {
    const form = new FormData();
    form.append('data', JSON.stringify({ name: 'bench', image: IMAGE, command: 'true' }));
    await http.post(`/2/projects/${projectId}/codes`, undefined, { raw: form });
    const clusters = {} as Record<Mode, string>;
    for (const mode of MODES) {
      const cluster = await createCluster(http, `bench-${mode}`);
      clusters[mode] = cluster;
      const log = pino({ level: 'warn' });
      if (mode === 'direct') {
        const config = loadConfig({ ...env, REDIS_URL: redis.url, FERRUM_RUNNER_CLUSTER: cluster });
        runners.push(await Runner.start(config, redis.url, log));
      } else {
        const created = await http.post(`/2/clusters/${cluster}/tokens`);
        if (created.status !== 200) throw new Error(`runner token: ${created.status} ${created.text}`);
        const config = loadConfig({
          ...env,
          FERRUM_API_URL: controller.url,
          FERRUM_RUNNER_TOKEN: created.body.token.token,
          FERRUM_RUNNER_CLUSTER: cluster,
        });
        runners.push(await Runner.startGateway(config, config.runner.gateway!, log));
      }
    }

    console.log(`(a) ${TASKS} tasks of "${IMAGE} true" per mode, ${SLOTS} slots, ${ROUNDS} alternating rounds`);
    const wall: Record<Mode, number> = { direct: 0, gateway: 0 };
    for (let round = 0, done = 0; round < ROUNDS; round++) {
      const count = Math.round((TASKS * (round + 1)) / ROUNDS) - done;
      const order = round % 2 === 0 ? MODES : [...MODES].reverse();
      for (const mode of order) {
        const started = performance.now();
        await allEnded(bench, await queueTasks(bench, clusters[mode], count));
        wall[mode] += performance.now() - started;
      }
      done += count;
    }
    for (const mode of MODES)
      console.log(
        `    ${mode}: ${(wall[mode] / 1000).toFixed(1)} s wall, ${(TASKS / (wall[mode] / 1000)).toFixed(1)} tasks/s`,
      );
    const ratio = wall.gateway / wall.direct;
    console.log(`    gateway/direct wall time: ${ratio.toFixed(2)}x (target <= 1.1x)`);
    figure('runner modes: gateway/direct task wall time', ratio, 'x', {
      better: 'lower',
      target: 1.1,
      reference: 'the same tasks on a direct runner, alternating rounds',
    });

    console.log(`(b) ${IDLE_TASKS} tasks queued one at a time on each idle runner`);
    for (const mode of MODES) {
      const latencies = await idleLatencies(bench, clusters[mode], IDLE_TASKS);
      console.log(
        `    ${mode}: queue-to-start p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms`,
      );
      figure(`runner modes: queue-to-start p50 on an idle ${mode} runner`, percentile(latencies, 50), 'ms', {
        better: 'lower',
      });
    }
  } finally {
    for (const runner of runners) await runner.stop();
    await client.quit();
    await controller.stop();
    await redis.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
