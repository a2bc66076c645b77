/**
 * One Redis against a 3-master Redis Cluster, side by side in one run: MQ batched produce and
 * consume, and task queueing through the API, each against a controller in a child process on
 * a private redis-server, then on a private cluster (all on this machine). On 2 cores the point
 * is correctness and no collapse, not a speed-up: the cluster's three servers share the cores.
 * Prints each rate, the cluster/standalone ratio, and server + Redis CPU per 1000 operations.
 */
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { createRedisClient, type RedisClient } from '../src/core/redis.js';
import { HttpClient } from '../test/helpers/http.js';
import { childCpuMs, redisCpuMs, serveInChild } from './lib/child-server.js';
import { check, Client, type Target } from './lib/mq-client.js';
import { figure, sized } from './lib/report.js';

const SECONDS = sized('BENCH_SECONDS', 5, 0.5);
const CLIENTS = 4;
const BATCH = 100;
type Topology = 'standalone' | 'cluster';
const TOPOLOGIES: Topology[] = ['standalone', 'cluster'];

if (process.env.BENCH_ROLE === 'server') {
  void serveInChild({}, { topology: process.env.BENCH_TOPOLOGY as Topology });
} else {
  void main();
}

interface Rates {
  produce: number;
  consume: number;
  queue: number;
  /** Server + Redis CPU ms per 1000 operations, per scenario. */
  cpu: Record<'produce' | 'consume' | 'queue', number>;
}

async function main(): Promise<void> {
  console.log(
    `Redis topologies: ${os.cpus().length} cores, ${SECONDS} s per scenario, ${CLIENTS} clients, batches of ${BATCH}; load average ${loadAverage()}`,
  );
  const results = {} as Record<Topology, Rates>;
  for (const topology of TOPOLOGIES) results[topology] = await measureTopology(topology);
  for (const name of ['produce', 'consume', 'queue'] as const) {
    const label = name === 'queue' ? 'tasks queued' : `mq ${name}`;
    figure(`redis cluster/standalone: ${label}`, results.cluster[name] / results.standalone[name], 'x', {
      better: 'higher',
      reference: 'the same scenario on one redis-server, same run',
    });
  }
  console.log(`load average at end: ${loadAverage()}`);
}

async function measureTopology(topology: Topology): Promise<Rates> {
  const child: ChildProcess = fork(process.argv[1]!, [], {
    env: { ...process.env, BENCH_ROLE: 'server', BENCH_TOPOLOGY: topology },
  });
  const target = await new Promise<Target>((resolve) => child.once('message', (message) => resolve(message as Target)));
  const redis = createRedisClient(target.redisConnection, 'bench', { log: { info: () => {}, warn: () => {} } });
  const client = new Client(target, CLIENTS);
  const http = new HttpClient(target.url, target.token);
  try {
    const form = new FormData();
    form.append('data', JSON.stringify({ name: 'topology', image: 'busybox', command: 'true' }));
    check(await http.post(`/2/projects/${target.projectId}/codes`, undefined, { raw: form }), 200);
    const cpu = () => cpuMs(child, redis);
    const scenario = async (name: keyof Rates['cpu'], step: (clientIndex: number) => Promise<number>) => {
      await runFor(Math.min(SECONDS, 1), step); // warm-up: JIT and script caches, as in a running server
      const before = await cpu();
      const { operations, seconds } = await runFor(SECONDS, step);
      const spent = (await cpu()) - before;
      const rate = operations / seconds;
      const perThousand = (spent * 1000) / operations;
      console.log(
        `  ${topology.padEnd(10)} ${name.padEnd(8)} ${Math.round(rate).toLocaleString('en-US').padStart(8)} /s   server+redis CPU ${perThousand.toFixed(1)} ms per 1000`,
      );
      figure(`${topology}: ${name === 'queue' ? 'tasks queued' : `mq ${name}`}`, rate, 'ops/s', { better: 'higher' });
      return { rate, perThousand };
    };
    const messages = Array.from({ length: BATCH }, (_, i) => ({ body: `topology message ${i} ${'x'.repeat(64)}` }));
    // One queue per client: on a cluster, queues land on different slots.
    const produce = await scenario('produce', async (i) => {
      check(await client.request('POST', `topology-${i}/messages`, { messages }), 201);
      return BATCH;
    });
    const consume = await scenario('consume', async (i) => {
      const body = check(await client.request('POST', `topology-${i}/reservations`, { n: BATCH, delete: true }), 200);
      return (body.messages as unknown[]).length;
    });
    const tasks = Array.from({ length: BATCH }, (_, i) => ({ code_name: 'topology', payload: `p${i}` }));
    const queue = await scenario('queue', async () => {
      check(await http.post(`/2/projects/${target.projectId}/tasks`, { tasks }), 200);
      return BATCH;
    });
    return {
      produce: produce.rate,
      consume: consume.rate,
      queue: queue.rate,
      cpu: { produce: produce.perThousand, consume: consume.perThousand, queue: queue.perThousand },
    };
  } finally {
    client.close();
    redis.disconnect();
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

/** Runs CLIENTS loops of `step` (each returns the operations it did) for `seconds`; 0 ends a loop early. */
async function runFor(
  seconds: number,
  step: (clientIndex: number) => Promise<number>,
): Promise<{ operations: number; seconds: number }> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let operations = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      while (performance.now() < deadline) {
        const done = await step(i);
        if (done === 0) break;
        operations += done;
      }
    }),
  );
  return { operations, seconds: (performance.now() - started) / 1000 };
}

/** CPU ms the controller process and every Redis master have used so far. */
async function cpuMs(child: ChildProcess, redis: RedisClient): Promise<number> {
  return (await childCpuMs(child)) + (await redisCpuMs(redis));
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');
}
