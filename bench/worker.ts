/**
 * Worker benchmark.
 * (a) N tasks of a container that exits at once, on one runner with 4 slots: queue-to-start
 *     latency p50/p99 and tasks/s, beside N bare `docker run --rm` of the same image and
 *     command, 4 at a time (xargs -P4), as a ratio of wall times (target ≤ 1.1×), and two
 *     floors without Ferrum, with where the CPU goes per task (worker-tasks.ts).
 * (b) API throughput of queueing tasks in batches of 100, posted by wrk, beside bare BullMQ
 *     addBulk of the same jobs on the same Redis (ratio, target ≥ 0.7×).
 * Also: queue-to-start latency on an idle runner (tasks queued one at a time), which is the
 * dispatch overhead alone, without the wait for a free slot that (a) mostly measures.
 * (c), (d): memory per finished task and list latency with 1,000,000 tasks (worker-list.ts);
 * `--list-only` runs only those; `--queue-only` runs only (b); `--tasks-only` only (a) and (a').
 * BENCH_TASKS (default 1000), BENCH_ROUNDS (20), BENCH_IDLE_TASKS (50) and BENCH_QUEUE_SECONDS
 * (5, the length of each of (b)'s four rounds) scale it.
 */
import { execFileSync } from 'node:child_process';
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
import { WorkerKeys } from '../src/worker/keys.js';
import { bullPriority, queueNameOf } from '../src/worker/tasks/queues/distribution.js';
import { HttpClient } from '../test/helpers/http.js';
import { startTestRedis } from '../test/helpers/redis.js';
import { createCluster } from '../test/helpers/worker.js';
import { figure, sized } from './lib/report.js';
import { cpuSeconds } from './lib/proc-cpu.js';
import { serveInChild } from './lib/child-server.js';
import { runListBench } from './worker-list.js';
import { wrk } from './lib/wrk.js';
import { COMMAND, IMAGE, runTasksBench, SLOTS } from './worker-tasks.js';

const QUEUE_SECONDS = sized('BENCH_QUEUE_SECONDS', 5, 3);

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
    // Queueing is measured by how many tasks wrk gets in: no quota may cut the rounds short.
    FERRUM_PROJECT_MAX_QUEUED_TASKS: String(1e9),
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

    if (!queueOnly) {
      const redisPid = Number(/process_id:(\d+)/.exec(await client.info('server'))![1]);
      const queue = (count: number) => queueAll(http, projectId, count, 'default', 2);
      await runTasksBench({ http, client, keys, projectId, runner, config, queue }, redisPid);
    }
    if (!tasksOnly) await runQueueBench(http, controller.url, token, redis.url, projectId);
  } finally {
    await client.quit();
    await runner.stop();
    await controller.stop();
    await redis.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** What one side of (b) took: tasks queued, wall seconds, and redis-server and server CPU seconds. */
interface QueueSide {
  tasks: number;
  seconds: number;
  redisCpu: number;
  nodeCpu: number;
}

/**
 * Ferrum's side of (b) for `seconds`: wrk (a C load generator, so that no Node client shares the
 * server's cores) posts batches of 100 tasks on 8 connections to this process's API server.
 */
async function queueThroughApi(
  controllerUrl: string,
  token: string,
  projectId: string,
  cluster: string,
  seconds: number,
): Promise<QueueSide> {
  const tasks = Array.from({ length: 100 }, () => ({ code_name: 'bench', payload: '{}', cluster }));
  const headers = { Authorization: `OAuth ${token}`, 'Content-Type': 'application/json' };
  const redisBefore = cpuSeconds(redisPid);
  const started = performance.now();
  const figures = await wrk(
    `${controllerUrl}/2/projects/${projectId}/tasks`,
    { seconds, connections: 8, serverPid: process.pid },
    { method: 'POST', body: JSON.stringify({ tasks }), headers },
  );
  return {
    tasks: figures.requests * 100,
    seconds: (performance.now() - started) / 1000,
    redisCpu: cpuSeconds(redisPid) - redisBefore,
    nodeCpu: (figures.cpuUs * figures.requests) / 1e6,
  };
}

/** BullMQ's side of (b) for `seconds`: addBulk of batches of 100 from this process, 8 in flight. */
async function queueThroughBullMq(queue: Queue, projectId: string, seconds: number): Promise<QueueSide> {
  const redisBefore = cpuSeconds(redisPid);
  const nodeBefore = process.cpuUsage();
  const started = performance.now();
  let tasks = 0;
  const deadline = started + seconds * 1000;
  const adder = async () => {
    while (performance.now() < deadline) {
      await bullAddAll(queue, projectId, 100, 1);
      tasks += 100;
    }
  };
  await Promise.all(Array.from({ length: 8 }, adder));
  const node = process.cpuUsage(nodeBefore);
  return {
    tasks,
    seconds: (performance.now() - started) / 1000,
    redisCpu: cpuSeconds(redisPid) - redisBefore,
    nodeCpu: (node.user + node.system) / 1e6,
  };
}

let redisPid = 0;

/** (b): queueing through the API against bare BullMQ addBulk of the same jobs on the same Redis. */
async function runQueueBench(
  http: HttpClient,
  controllerUrl: string,
  token: string,
  redisUrl: string,
  projectId: string,
): Promise<void> {
  console.log(
    `(b) queueing tasks through the API in batches of 100 (wrk, 8 connections), beside bare BullMQ addBulk of the same jobs on the same Redis (8 in flight), ${QUEUE_SECONDS} s a round`,
  );
  // Clusters without runners, so that the tasks stay queued and only queueing is measured.
  const warmUp = await createCluster(http, 'bench-warmup');
  const idle = await createCluster(http, 'bench-idle');
  const bullConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const bull = new Queue(queueNameOf('bench-bullmq'), { connection: bullConnection, prefix: 'bench-bullmq' });
  redisPid = Number(/process_id:(\d+)/.exec(await bullConnection.info('server'))![1]);
  try {
    // JIT and script caches warm, as in a running server. As long as a round: on a busy machine a
    // 1 s warm-up of the cold server answered no batch at all, and wrk's output had no figures.
    await queueThroughApi(controllerUrl, token, projectId, warmUp, QUEUE_SECONDS);
    await queueThroughBullMq(bull, projectId, QUEUE_SECONDS);
    // The two sides alternate in rounds (F B B F) so that both see the same load. Beside the
    // rate, each side is charged the CPU that redis-server and the server (Ferrum's API server,
    // or the BullMQ client process) spent on it, from /proc: figures other work on the machine
    // moves least. wrk's own CPU is in neither.
    const sides = { ferrum: [] as QueueSide[], bullmq: [] as QueueSide[] };
    sides.ferrum.push(await queueThroughApi(controllerUrl, token, projectId, idle, QUEUE_SECONDS));
    sides.bullmq.push(await queueThroughBullMq(bull, projectId, QUEUE_SECONDS));
    sides.bullmq.push(await queueThroughBullMq(bull, projectId, QUEUE_SECONDS));
    sides.ferrum.push(await queueThroughApi(controllerUrl, token, projectId, idle, QUEUE_SECONDS));
    const sum = (list: QueueSide[]) => ({
      tasks: list.reduce((total, side) => total + side.tasks, 0),
      seconds: list.reduce((total, side) => total + side.seconds, 0),
      redisCpu: list.reduce((total, side) => total + side.redisCpu, 0),
      nodeCpu: list.reduce((total, side) => total + side.nodeCpu, 0),
    });
    const ferrum = sum(sides.ferrum);
    const bullmq = sum(sides.bullmq);
    const ferrumRate = ferrum.tasks / ferrum.seconds;
    const bullRate = bullmq.tasks / bullmq.seconds;
    const perTask = (cpu: number, side: { tasks: number }) => ((cpu / side.tasks) * 1e6).toFixed(1);
    console.log(
      `    Ferrum: ${ferrumRate.toFixed(0)} tasks/s queued (${(ferrumRate / bullRate).toFixed(2)}x BullMQ's, target >= 0.7x)`,
    );
    console.log(`    bare BullMQ addBulk: ${bullRate.toFixed(0)} jobs/s`);
    console.log(
      `    CPU per task: redis-server ${perTask(ferrum.redisCpu, ferrum)} µs (BullMQ ${perTask(bullmq.redisCpu, bullmq)} µs), ` +
        `API server ${perTask(ferrum.nodeCpu, ferrum)} µs (BullMQ's client process ${perTask(bullmq.nodeCpu, bullmq)} µs)`,
    );
    figure('tasks queued through the API (batches of 100)', ferrumRate, 'tasks/s', { better: 'higher' });
    figure('bare BullMQ addBulk of the same jobs (batches of 100)', bullRate, 'jobs/s', {
      better: 'higher',
      machine: true,
    });
    // BullMQ's addBulk writes the same jobs to the same Redis with no HTTP, auth or quota: queueing's
    // floor. 0.7x: the 11-26 report gave 0.75x, where the old absolute 3,000 tasks/s was under 0.1x.
    figure('tasks queued: Ferrum API / bare BullMQ addBulk', ferrumRate / bullRate, 'x', {
      better: 'higher',
      target: 0.7,
      reference: 'BullMQ addBulk of the same jobs on the same Redis, in the same run',
    });
    const redisPerTask = (side: { redisCpu: number; tasks: number }) => side.redisCpu / side.tasks;
    figure(
      'tasks queued: redis-server CPU per task, Ferrum / BullMQ',
      redisPerTask(ferrum) / redisPerTask(bullmq),
      'x',
      {
        better: 'lower',
        reference: 'redis-server CPU (from /proc) of BullMQ addBulk of the same jobs, in the same run',
      },
    );
    figure(
      'tasks queued: server CPU per task, Ferrum API server / BullMQ client',
      ferrum.nodeCpu / ferrum.tasks / (bullmq.nodeCpu / bullmq.tasks),
      'x',
      { better: 'lower', reference: 'CPU (from /proc) of the process running BullMQ addBulk, in the same run' },
    );
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
