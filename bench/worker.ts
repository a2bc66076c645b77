/**
 * Worker benchmark.
 * (a) N tasks of a container that exits at once, on one runner with 4 slots: queue-to-start
 *     latency p50/p99 and tasks/s, beside N bare `docker run --rm` of the same image and
 *     command, 4 at a time (xargs -P4), as a ratio of wall times (target ≤ 1.1×).
 * (b) API throughput of queueing tasks in batches of 100 (target ≥ 3,000 tasks/s), beside bare
 *     BullMQ addBulk of the same jobs on the same Redis (ratio, target ≥ 0.7×).
 * Also: queue-to-start latency on an idle runner (tasks queued one at a time), which is the
 * dispatch overhead alone, without the wait for a free slot that (a) mostly measures.
 * (c), (d): memory per finished task and list latency with 1,000,000 tasks (worker-list.ts);
 * `--list-only` runs only those; `--queue-only` runs only (b); `--tasks-only` only (a) and (a').
 * BENCH_TASKS (default 1000), BENCH_ROUNDS (5), BENCH_IDLE_TASKS (50) and BENCH_QUEUE_TASKS
 * (20000) scale it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { startController } from '../controller/main.js';
import { Runner } from '../runner/runner.js';
import { loadConfig } from '../src/core/config.js';
import { newObjectId } from '../src/core/ids.js';
import { KeySpace } from '../src/core/redis.js';
import { sleep } from '../src/core/time.js';
import { WorkerKeys } from '../src/worker/keys.js';
import { bullPriority, queueNameOf } from '../src/worker/tasks/queues/distribution.js';
import { HttpClient } from '../test/helpers/http.js';
import { startTestRedis } from '../test/helpers/redis.js';
import { createCluster } from '../test/helpers/worker.js';
import { figure, sized } from './lib/report.js';
import { cpuSeconds } from './lib/proc-cpu.js';
import { serveInChild } from './lib/child-server.js';
import { runListBench } from './worker-list.js';

const TASKS = sized('BENCH_TASKS', 1000, 4);
const QUEUE_TASKS = sized('BENCH_QUEUE_TASKS', 20000, 400);
const IDLE_TASKS = sized('BENCH_IDLE_TASKS', 50, 2);
const WARM_UP_TASKS = sized('BENCH_WARM_UP_TASKS', 2000, 100);
const SLOTS = 4;
const ROUNDS = sized('BENCH_ROUNDS', 5, 1);
const IMAGE = 'ferrum-test/busybox';
const COMMAND = 'true';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * A POST that survives a pooled keep-alive connection the server closed while the bench was
 * busy with docker runs: a reset before any answer means the request was not processed.
 */
async function postFresh(http: HttpClient, path: string, body: unknown) {
  try {
    return await http.post(path, body);
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw error;
    return http.post(path, body);
  }
}

/**
 * What Ferrum's task queueing does in BullMQ (TaskDistribution.add) without the API and the task
 * records: addBulk of the same jobs, batches of 100, `parallel` calls in flight.
 */
async function bullAddAll(queue: Queue, projectId: string, count: number, parallel: number): Promise<void> {
  let next = 0;
  const adder = async () => {
    while (next < count) {
      const size = Math.min(100, count - next);
      next += size;
      await queue.addBulk(
        Array.from({ length: size }, () => {
          const taskId = newObjectId();
          return {
            name: 'task',
            data: { project_id: projectId, task_id: taskId },
            opts: { jobId: taskId, delay: 0, priority: bullPriority(0) },
          };
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: parallel }, adder));
}

async function queueAll(
  http: HttpClient,
  projectId: string,
  count: number,
  cluster: string,
  parallel: number,
): Promise<void> {
  let next = 0;
  const sender = async () => {
    while (next < count) {
      const size = Math.min(100, count - next);
      next += size;
      const tasks = Array.from({ length: size }, () => ({ code_name: 'bench', payload: '{}', cluster }));
      const response = await postFresh(http, `/2/projects/${projectId}/tasks`, { tasks });
      if (response.status !== 200) throw new Error(`queueing failed: ${response.status} ${response.text}`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, sender));
}

function bareDockerWallMs(count: number): number {
  const started = performance.now();
  const result = spawnSync(
    'sh',
    ['-c', `seq ${count} | xargs -P4 -I{} docker run --rm --network none ${IMAGE} /bin/sh -c ${COMMAND}`],
    {
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) throw new Error('docker run baseline failed');
  return performance.now() - started;
}

async function main(): Promise<void> {
  execFileSync('bash', ['scripts/build-test-images.sh'], { stdio: 'inherit' });
  const redis = await startTestRedis();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-bench-'));
  const config = loadConfig({
    PORT: '0',
    REDIS_URL: redis.url,
    FERRUM_DATA_DIR: dataDir,
    FERRUM_BOOTSTRAP_PASSWORD: 'bench-password',
    LOG_LEVEL: 'warn',
    FERRUM_RUNNER_SLOTS: String(SLOTS),
    FERRUM_RUNNER_NETWORK: 'none',
  });
  const controller = await startController(config);
  const runner = await Runner.start(config, redis.url, pino({ level: 'warn' }));
  const { token, projectId } = controller.bootstrap!;
  const http = new HttpClient(controller.url, token);
  const client = new Redis(redis.url);
  const keys = new WorkerKeys(new KeySpace(config.keyPrefix));
  try {
    const form = new FormData();
    form.append('data', JSON.stringify({ name: 'bench', image: IMAGE, command: COMMAND }));
    await http.post(`/2/projects/${projectId}/codes`, undefined, { raw: form });

    if (!queueOnly) await runTasksBench(http, client, keys, projectId);
    if (!tasksOnly) await runQueueBench(http, redis.url, projectId);
  } finally {
    await client.quit();
    await runner.stop();
    await controller.stop();
    await redis.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** (a) and (a'): tasks run on the runner against bare docker runs, and queue-to-start latency. */
async function runTasksBench(http: HttpClient, client: Redis, keys: WorkerKeys, projectId: string): Promise<void> {
  console.log(
    `(a) ${TASKS} tasks of "${IMAGE} ${COMMAND}", runner with ${SLOTS} slots, against as many bare docker runs`,
  );
  // Other work on the machine comes and goes: the two sides alternate in rounds so that
  // both see the same load, and their wall times are summed.
  const ended = async () =>
    (await client.zcard(keys.tasksWithStatus(projectId, 'complete'))) +
    (await client.zcard(keys.tasksWithStatus(projectId, 'error')));
  let ferrumWall = 0;
  let dockerWall = 0;
  for (let round = 0, done = 0; round < ROUNDS; round++) {
    const count = Math.round((TASKS * (round + 1)) / ROUNDS) - done;
    const runFerrum = async () => {
      const started = performance.now();
      await queueAll(http, projectId, count, 'default', 2);
      while ((await ended()) < done + count) await sleep(20);
      ferrumWall += performance.now() - started;
    };
    const runDocker = () => {
      dockerWall += bareDockerWallMs(count);
    };
    if (round % 2 === 0) {
      await runFerrum();
      runDocker();
    } else {
      runDocker();
      await runFerrum();
    }
    done += count;
  }
  const ids = await client.zrange(keys.tasksWithStatus(projectId, 'complete'), 0, -1);
  const records = await Promise.all(
    ids.map((id) => client.hmget(keys.task(projectId, id), 'created_at', 'start_time')),
  );
  const latencies = records.map(([created, start]) => Number(start) - Number(created)).sort((a, b) => a - b);
  console.log(`    complete: ${ids.length}, error: ${await client.zcard(keys.tasksWithStatus(projectId, 'error'))}`);
  console.log(
    `    queue-to-start latency p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms (tasks queued in batches wait for a slot)`,
  );
  console.log(
    `    ferrum: ${(ferrumWall / 1000).toFixed(1)} s wall, ${(TASKS / (ferrumWall / 1000)).toFixed(1)} tasks/s`,
  );
  console.log(
    `    docker run --rm, xargs -P4: ${(dockerWall / 1000).toFixed(1)} s wall, ${(TASKS / (dockerWall / 1000)).toFixed(1)} runs/s`,
  );
  console.log(`    ratio ferrum/docker wall time: ${(ferrumWall / dockerWall).toFixed(2)}x (target <= 1.1x)`);
  figure('tasks: queue-to-start p50 (4 slots busy)', percentile(latencies, 50), 'ms', { better: 'lower' });
  figure('tasks: ferrum/docker run wall time', ferrumWall / dockerWall, 'x', {
    better: 'lower',
    target: 1.1,
    reference: 'bare docker run --rm of the same image, 4 at a time',
  });

  console.log(`(a') ${IDLE_TASKS} tasks queued one at a time on the idle runner`);
  const idleLatencies: number[] = [];
  for (let i = 0; i < IDLE_TASKS; i++) {
    const response = await http.post(`/2/projects/${projectId}/tasks`, {
      tasks: [{ code_name: 'bench', payload: '{}' }],
    });
    const id = response.body.tasks[0].id as string;
    let start: string | null = null;
    while (!(start = await client.hget(keys.task(projectId, id), 'start_time'))) await sleep(2);
    idleLatencies.push(Number(start) - Number(await client.hget(keys.task(projectId, id), 'created_at')));
    while ((await client.hget(keys.task(projectId, id), 'status')) === 'running') await sleep(5);
  }
  idleLatencies.sort((a, b) => a - b);
  console.log(
    `    queue-to-start latency p50 ${percentile(idleLatencies, 50)} ms, p99 ${percentile(idleLatencies, 99)} ms`,
  );
  figure('tasks: queue-to-start p50 on an idle runner', percentile(idleLatencies, 50), 'ms', { better: 'lower' });
}

/** (b): queueing through the API against bare BullMQ addBulk of the same jobs on the same Redis. */
async function runQueueBench(http: HttpClient, redisUrl: string, projectId: string): Promise<void> {
  console.log(
    `(b) queueing ${QUEUE_TASKS} tasks through the API in batches of 100, 8 requests in flight, beside bare BullMQ addBulk of the same jobs on the same Redis`,
  );
  // Clusters without runners, so that the tasks stay queued and only queueing is measured.
  const warmUp = await createCluster(http, 'bench-warmup');
  const idle = await createCluster(http, 'bench-idle');
  const bullConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const bull = new Queue(queueNameOf('bench-bullmq'), { connection: bullConnection, prefix: 'bench-bullmq' });
  const redisPid = Number(/process_id:(\d+)/.exec(await bullConnection.info('server'))![1]);
  try {
    // JIT and script caches warm, as in a running server.
    await queueAll(http, projectId, WARM_UP_TASKS, warmUp, 8);
    await bullAddAll(bull, projectId, WARM_UP_TASKS, 8);
    // The two sides alternate in rounds (F B B F) so that both see the same load. Beside wall
    // time, each side is charged the CPU that redis-server and this process (API server and
    // load generator both) spent on it, from /proc: figures that other work on the machine
    // does not move.
    const ferrum = { seconds: 0, redisCpu: 0, nodeCpu: 0 };
    const bullmq = { seconds: 0, redisCpu: 0, nodeCpu: 0 };
    const round = QUEUE_TASKS / 2;
    const timed = async (side: typeof ferrum, work: () => Promise<void>) => {
      const started = performance.now();
      const redisBefore = cpuSeconds(redisPid);
      const nodeBefore = process.cpuUsage();
      await work();
      const node = process.cpuUsage(nodeBefore);
      side.nodeCpu += (node.user + node.system) / 1e6;
      side.redisCpu += cpuSeconds(redisPid) - redisBefore;
      side.seconds += (performance.now() - started) / 1000;
    };
    await timed(ferrum, () => queueAll(http, projectId, round, idle, 8));
    await timed(bullmq, () => bullAddAll(bull, projectId, round, 8));
    await timed(bullmq, () => bullAddAll(bull, projectId, round, 8));
    await timed(ferrum, () => queueAll(http, projectId, round, idle, 8));
    const ferrumRate = QUEUE_TASKS / ferrum.seconds;
    const bullRate = QUEUE_TASKS / bullmq.seconds;
    const perTask = (cpu: number) => ((cpu / QUEUE_TASKS) * 1e6).toFixed(0);
    console.log(`    Ferrum: ${ferrumRate.toFixed(0)} tasks/s queued (target >= 3000)`);
    console.log(`    bare BullMQ addBulk: ${bullRate.toFixed(0)} jobs/s`);
    console.log(
      `    CPU per task: redis-server ${perTask(ferrum.redisCpu)} µs (BullMQ ${perTask(bullmq.redisCpu)} µs), ` +
        `this process ${perTask(ferrum.nodeCpu)} µs (BullMQ ${perTask(bullmq.nodeCpu)} µs)`,
    );
    figure('tasks queued through the API (batches of 100)', ferrumRate, 'tasks/s', {
      better: 'higher',
      target: 3000,
    });
    figure('bare BullMQ addBulk of the same jobs (batches of 100)', bullRate, 'jobs/s', { better: 'higher' });
    figure('tasks queued: Ferrum API / bare BullMQ addBulk', ferrumRate / bullRate, 'x', {
      better: 'higher',
      target: 0.7,
      reference: 'BullMQ addBulk of the same jobs on the same Redis, in the same run',
    });
    figure('tasks queued: redis-server CPU per task, Ferrum / BullMQ', ferrum.redisCpu / bullmq.redisCpu, 'x', {
      better: 'lower',
      reference: 'redis-server CPU (from /proc) of BullMQ addBulk of the same jobs, in the same run',
    });
  } finally {
    await bull.close();
    await bullConnection.quit();
  }
}

const listOnly = process.argv.includes('--list-only');
const queueOnly = process.argv.includes('--queue-only');
const tasksOnly = process.argv.includes('--tasks-only');
const serverRole = process.env.BENCH_ROLE === 'server';
const bench = serverRole
  ? serveInChild()
  : listOnly
    ? runListBench()
    : queueOnly || tasksOnly
      ? main()
      : main().then(runListBench);
bench.then(
  () => {
    if (!serverRole) process.exit(0);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
