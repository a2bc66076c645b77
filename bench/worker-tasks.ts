/**
 * bench:worker (a) and (a'): tasks of a container that exits at once, on one runner with 4 slots,
 * beside the same containers without Ferrum, and queue-to-start latency on an idle runner.
 * Sides, alternating in rounds so that all see the same load on a shared machine:
 * - ferrum: tasks queued through the API, run by the runner (wall: the first queueing to the
 *   last task's end and its container's removal);
 * - docker run --rm, xargs -P4: the reference of the target;
 * - docker API as docker run asks: the same calls without the CLI process (create with
 *   AutoRemove, attach, wait for removal, start), 4 at a time;
 * - runner's executor only: Ferrum's own container of a task (limits, tmpfs task folder, its
 *   prelude, removal) through DockerExecutor, 4 at a time, without queue, Redis or API.
 * Each side is charged the CPU, from /proc, of this process (API server, runner and load
 * generator), the docker CLI processes it ran, redis-server, and the engine's parts.
 */
import { spawn } from 'node:child_process';
import Docker from 'dockerode';
import type { Redis } from 'ioredis';
import { DockerExecutor, type ContainerSpec } from '../runner/docker-executor.js';
import type { Runner } from '../runner/runner.js';
import { containerSpecOf } from '../runner/tasks/container-spec.js';
import { CONFIG_FILE, PAYLOAD_FILE } from '../runner/tasks/task-files.js';
import { LABELS } from '../runner/tasks/orphans.js';
import type { Config } from '../src/core/config.js';
import { sleep } from '../src/core/time.js';
import type { WorkerKeys } from '../src/worker/keys.js';
import type { CodeRevision, Task } from '../src/worker/types.js';
import type { HttpClient } from '../test/helpers/http.js';
import { EngineCpu } from './lib/engine-cpu.js';
import { cpuSeconds } from './lib/proc-cpu.js';
import { figure, sized } from './lib/report.js';
import { dockerRunByApi, executorRun, runMany } from './lib/task-floor.js';

const TASKS = sized('BENCH_TASKS', 1000, 4);
const IDLE_TASKS = sized('BENCH_IDLE_TASKS', 50, 2);
// Short rounds: the load of others on a shared machine changes over minutes, and every side should see it alike.
const ROUNDS = sized('BENCH_ROUNDS', 20, 1);
export const SLOTS = 4;
export const IMAGE = 'ferrum-test/busybox';
export const COMMAND = 'true';

export interface TasksBenchTarget {
  http: HttpClient;
  client: Redis;
  keys: WorkerKeys;
  projectId: string;
  runner: Runner;
  config: Config;
  /** Queues `count` tasks of the bench's code through the API. */
  queue: (count: number) => Promise<void>;
}

const PARTS = ['wall', 'process', 'cli', 'redis', 'dockerd', 'containerd', 'shims'] as const;
type Cost = Record<(typeof PARTS)[number], number>;

interface Side {
  label: string;
  cost: Cost;
  /** Runs `count` of its containers; its wall time in ms when it measures that itself. */
  run: (count: number) => Promise<number | void>;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function sideOf(label: string, run: Side['run']): Side {
  return { label, run, cost: Object.fromEntries(PARTS.map((part) => [part, 0])) as Cost };
}

/** Runs one side's share of a round, adding its wall time and CPU by part to its cost. */
async function measured(side: Side, count: number, redisPid: number): Promise<void> {
  const engine = new EngineCpu();
  const started = performance.now();
  const own = process.cpuUsage();
  const cli = cpuSeconds(process.pid, true) - cpuSeconds(process.pid);
  const redis = cpuSeconds(redisPid);
  engine.start();
  const wall = (await side.run(count)) ?? performance.now() - started;
  const engineCpu = engine.stop();
  const used = process.cpuUsage(own);
  const { cost } = side;
  cost.wall += wall;
  cost.process += (used.user + used.system) / 1e6;
  cost.cli += cpuSeconds(process.pid, true) - cpuSeconds(process.pid) - cli;
  cost.redis += cpuSeconds(redisPid) - redis;
  cost.dockerd += engineCpu.dockerd;
  cost.containerd += engineCpu.containerd;
  cost.shims += engineCpu.shims;
}

async function dockerCliRuns(count: number): Promise<void> {
  const command = `seq ${count} | xargs -P4 -I{} docker run --rm --network none ${IMAGE} /bin/sh -c ${COMMAND}`;
  // Not spawnSync: the engine's shims are sampled on this event loop meanwhile.
  const status = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', resolve);
  });
  if (status !== 0) throw new Error('docker run baseline failed');
}

/** The count of the project's tasks that ended, and the time of the last end. */
async function endsOf(target: TasksBenchTarget): Promise<{ count: number; last: number }> {
  const { client, keys, projectId } = target;
  const ids = [
    ...(await client.zrange(keys.tasksWithStatus(projectId, 'complete'), 0, -1)),
    ...(await client.zrange(keys.tasksWithStatus(projectId, 'error'), 0, -1)),
  ];
  const pipeline = client.pipeline();
  for (const id of ids) pipeline.hget(keys.task(projectId, id), 'end_time');
  const ends = ((await pipeline.exec()) ?? []).map(([, end]) => Number(end));
  return { count: ids.length, last: Math.max(0, ...ends) };
}

/** When the last of the runner's containers was removed, from the engine's events (no polling to measure it). */
async function removalsOf(docker: Docker, runnerId: string): Promise<{ last: number; stop: () => void }> {
  const events = (await docker.getEvents({
    filters: { type: ['container'], event: ['destroy'], label: [`${LABELS.runner}=${runnerId}`] },
  })) as NodeJS.ReadableStream & { destroy(): void };
  const removals = { last: 0, stop: () => events.destroy() };
  let rest = '';
  events.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop()!;
    for (const line of lines.filter(Boolean))
      removals.last = Math.max(removals.last, (JSON.parse(line) as { timeNano: number }).timeNano / 1e6);
  });
  events.on('error', () => {});
  return removals;
}

/**
 * Ferrum's side: wall time from the first queueing to the last task's end and its container's
 * removal, both as recorded (by the runner, by the engine), so the bench's own checks, seldom
 * and cheap, neither add to it nor load the machine while it runs.
 */
function ferrumSide(target: TasksBenchTarget, docker: Docker): Side {
  let done = 0;
  const ended = async () =>
    (await target.client.zcard(target.keys.tasksWithStatus(target.projectId, 'complete'))) +
    (await target.client.zcard(target.keys.tasksWithStatus(target.projectId, 'error')));
  const runnerContainers = () =>
    docker.listContainers({ all: true, filters: { label: [`${LABELS.runner}=${target.runner.id}`] } });
  return sideOf('ferrum tasks', async (count) => {
    const removals = await removalsOf(docker, target.runner.id);
    try {
      const started = Date.now();
      await target.queue(count);
      done += count;
      while ((await ended()) < done) await sleep(100);
      while ((await runnerContainers()).length > 0) await sleep(20);
      return Math.max((await endsOf(target)).last, removals.last) - started;
    } finally {
      removals.stop();
    }
  });
}

/** The container the runner starts for a task of the bench's code, from a task it ran. */
async function specOfBenchTask(target: TasksBenchTarget): Promise<ContainerSpec> {
  const { client, keys, projectId, config } = target;
  const [id] = await client.zrange(keys.tasksWithStatus(projectId, 'complete'), 0, 0);
  const task = (await client.hgetall(keys.task(projectId, id!))) as unknown as Task;
  const revision = { command: COMMAND, env_vars: {} } as unknown as CodeRevision;
  return containerSpecOf({
    task,
    revision,
    image: IMAGE,
    imageCmd: [],
    files: { content: { [PAYLOAD_FILE]: task.payload, [CONFIG_FILE]: '' } },
    labels: { 'ferrum.bench': 'executor-floor' },
    config: config.runner,
    taskToken: 'bench',
  });
}

function perTask(seconds: number): string {
  return ((seconds / TASKS) * 1000).toFixed(1).padStart(7);
}

function printCosts(sides: Side[]): void {
  console.log(
    '    per task, ms:            wall×4  this process  docker CLI  redis  dockerd  containerd  shims+runc  engine',
  );
  for (const { label, cost } of sides) {
    const engine = cost.dockerd + cost.containerd + cost.shims;
    console.log(
      `    ${label.padEnd(24)} ${perTask((cost.wall * 4) / 1000)} ${perTask(cost.process)}      ${perTask(cost.cli)}` +
        ` ${perTask(cost.redis)} ${perTask(cost.dockerd)}   ${perTask(cost.containerd)}     ${perTask(cost.shims)} ${perTask(engine)}`,
    );
  }
  console.log(
    '    (wall×4: wall time per task times the 4 running at once; CPU from /proc; the engine is shared with the machine)',
  );
}

/** (a) and (a'). */
export async function runTasksBench(target: TasksBenchTarget, redisPid: number): Promise<void> {
  console.log(
    `(a) ${TASKS} tasks of "${IMAGE} ${COMMAND}", runner with ${SLOTS} slots, against as many bare docker runs and two floors without Ferrum (after ${SLOTS} of each to warm up)`,
  );
  const docker = new Docker();
  const executor = new DockerExecutor(docker);
  const ferrum = ferrumSide(target, docker);
  const cli = sideOf('docker run --rm (CLI)', dockerCliRuns);
  const api = sideOf('docker API as run asks', (count) =>
    runMany(count, SLOTS, () => dockerRunByApi(docker, IMAGE, COMMAND)),
  );
  let spec: ContainerSpec | null = null;
  const floor = sideOf("runner's executor only", async (count) => {
    spec ??= await specOfBenchTask(target);
    await runMany(count, SLOTS, () => executorRun(executor, spec!));
    await executor.settle();
  });
  const sides = [ferrum, cli, api, floor];
  // Warm: code paths compiled, image inspected, the first runs' one-off costs paid on every side.
  for (const side of sides) await side.run(SLOTS);
  for (const side of sides) side.cost = sideOf(side.label, side.run).cost;
  for (let round = 0, done = 0; round < ROUNDS; round++) {
    const count = Math.round((TASKS * (round + 1)) / ROUNDS) - done;
    const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
    for (const side of order) await measured(side, count, redisPid);
    done += count;
  }
  await reportTasks(target, sides);
  await runIdleBench(target);
}

async function reportTasks(target: TasksBenchTarget, [ferrum, cli, api, floor]: Side[]): Promise<void> {
  const { client, keys, projectId } = target;
  const ids = await client.zrange(keys.tasksWithStatus(projectId, 'complete'), 0, -1);
  const records = await Promise.all(
    ids.map((id) => client.hmget(keys.task(projectId, id), 'created_at', 'start_time')),
  );
  const latencies = records.map(([created, start]) => Number(start) - Number(created)).sort((a, b) => a - b);
  console.log(`    complete: ${ids.length}, error: ${await client.zcard(keys.tasksWithStatus(projectId, 'error'))}`);
  console.log(
    `    queue-to-start latency p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms (tasks queued in batches wait for a slot)`,
  );
  for (const side of [ferrum!, cli!, api!, floor!]) {
    const seconds = side.cost.wall / 1000;
    console.log(`    ${side.label}: ${seconds.toFixed(1)} s wall, ${(TASKS / seconds).toFixed(1)} per s`);
  }
  printCosts([ferrum!, cli!, api!, floor!]);
  const ratio = ferrum!.cost.wall / cli!.cost.wall;
  console.log(`    ratio ferrum/docker run wall time: ${ratio.toFixed(2)}x (target <= 1.1x)`);
  console.log(
    `    ferrum/executor only: ${(ferrum!.cost.wall / floor!.cost.wall).toFixed(2)}x (queue, Redis, API, task records);` +
      ` executor only/docker API: ${(floor!.cost.wall / api!.cost.wall).toFixed(2)}x (Ferrum's container: limits, tmpfs, prelude);` +
      ` docker run/docker API: ${(cli!.cost.wall / api!.cost.wall).toFixed(2)}x (the CLI process)`,
  );
  figure('tasks: queue-to-start p50 (4 slots busy)', percentile(latencies, 50), 'ms', { better: 'lower' });
  figure('tasks: ferrum/docker run wall time', ratio, 'x', {
    better: 'lower',
    target: 1.1,
    reference: 'bare docker run --rm of the same image, 4 at a time',
  });
  figure("tasks: ferrum/runner's executor alone wall time", ferrum!.cost.wall / floor!.cost.wall, 'x', {
    better: 'lower',
    reference: "the runner's DockerExecutor running the same containers, 4 at a time, no queue or Redis",
  });
  const engine = (side: Side) => side.cost.dockerd + side.cost.containerd + side.cost.shims;
  figure('tasks: engine CPU per task, ferrum/docker run', engine(ferrum!) / engine(cli!), 'x', {
    better: 'lower',
    reference: 'dockerd, containerd, shims and runc CPU of bare docker run --rm, in the same run',
  });
}

/** (a'): queue-to-start latency with tasks queued one at a time on the idle runner. */
async function runIdleBench({ http, client, keys, projectId }: TasksBenchTarget): Promise<void> {
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
