/**
 * Every core on one machine: `ferrum controller` as a real process at FERRUM_WORKERS=1 and at
 * FERRUM_WORKERS=N (N: BENCH_WORKERS, else one per available core), in one run on one
 * redis-server, each driven by wrk (cache GET, single MQ post). Prints each rate, the server's
 * CPU per request (the primary and its workers, from /proc) and Redis's, and the ratio of N
 * workers' rate to one worker's. Target on a 2-core machine: at least 1.3×. wrk runs on the
 * same machine and takes a share of its cores: the load average is printed at start and end.
 */
import os from 'node:os';
import { startTestRedis } from '../test/helpers/redis.js';
import {
  ferrumChildPids,
  signalAndWait,
  startFerrumProcess,
  type FerrumProcess,
} from '../test/helpers/ferrum-process.js';
import { cpuSeconds } from './lib/proc-cpu.js';
import { figure, sized } from './lib/report.js';
import { wrk, type LoadFigures, type WrkRequest } from './lib/wrk.js';

const SECONDS = sized('BENCH_SECONDS', 10, 1);
const WARM_UP_SECONDS = sized('BENCH_WARM_UP_SECONDS', 3, 1);
const CONNECTIONS = sized('BENCH_CONNECTIONS', 50, 16);
const WORKERS = sized('BENCH_WORKERS', os.availableParallelism(), os.availableParallelism());
const TARGET = 1.3;

interface Operation {
  name: string;
  path: (projectId: string) => string;
  request: (token: string) => WrkRequest;
}

const headers = (token: string) => ({ authorization: `OAuth ${token}`, 'content-type': 'application/json' });

const OPERATIONS: Operation[] = [
  {
    name: 'cache GET',
    path: (projectId) => `/1/projects/${projectId}/caches/bench/items/hot`,
    request: (token) => ({ method: 'GET', headers: headers(token) }),
  },
  {
    name: 'MQ post (1 message)',
    path: (projectId) => `/3/projects/${projectId}/queues/bench/messages`,
    request: (token) => ({
      method: 'POST',
      body: JSON.stringify({ messages: [{ body: 'a message of the cores bench' }] }),
      headers: headers(token),
    }),
  },
];

interface Measured {
  load: LoadFigures;
  redisCpuUs: number;
}

const loadAverage = () =>
  os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');

/** A controller at `workers` on `redisUrl`; the first start bootstraps, later ones reuse its token. */
async function startServer(workers: number, redisUrl: string): Promise<FerrumProcess> {
  return startFerrumProcess('controller', {
    env: { FERRUM_WORKERS: String(workers), REDIS_URL: redisUrl, LOG_LEVEL: 'warn', FERRUM_HTTP_DRAIN_MS: '0' },
  });
}

async function measure(server: FerrumProcess, operation: Operation, redisPid: number, access: Access) {
  const url = server.url + operation.path(access.projectId);
  const pids = [server.child.pid!, ...ferrumChildPids(server.child.pid!)];
  const request = operation.request(access.token);
  await wrk(url, { seconds: WARM_UP_SECONDS, connections: CONNECTIONS, serverPid: pids }, request);
  const redisBefore = cpuSeconds(redisPid);
  const load = await wrk(url, { seconds: SECONDS, connections: CONNECTIONS, serverPid: pids }, request);
  return { load, redisCpuUs: ((cpuSeconds(redisPid) - redisBefore) * 1_000_000) / load.requests };
}

interface Access {
  token: string;
  projectId: string;
}

async function runAt(workers: number, redisUrl: string, redisPid: number, access: Access | null) {
  const server = await startServer(workers, redisUrl);
  try {
    const known = access ?? { token: server.token!, projectId: server.projectId! };
    const put = await fetch(`${server.url}${OPERATIONS[0]!.path(known.projectId)}`, {
      method: 'PUT',
      headers: headers(known.token),
      body: JSON.stringify({ value: 'a cached value of the cores bench' }),
    });
    if (!put.ok) throw new Error(`cache PUT answered ${put.status}`);
    const results = new Map<string, Measured>();
    for (const operation of OPERATIONS) results.set(operation.name, await measure(server, operation, redisPid, known));
    return { access: known, results };
  } finally {
    await signalAndWait(server, 'SIGTERM', 60_000);
  }
}

function report(workers: number, at: Map<string, Measured>): void {
  for (const [name, { load, redisCpuUs }] of at) {
    const label = `${name}, ${workers} worker${workers === 1 ? '' : 's'}`;
    figure(label, load.rps, 'req/s', { better: 'higher' });
    figure(`${label}, p99`, load.p99Ms, 'ms', { better: 'lower' });
    figure(`${label}, server CPU per request`, load.cpuUs, 'µs', { better: 'lower' });
    figure(`${label}, Redis CPU per request`, redisCpuUs, 'µs', { better: 'lower' });
  }
}

async function main(): Promise<void> {
  console.log(
    `cores: ${os.availableParallelism()} available, ${WORKERS} workers against 1; wrk ${CONNECTIONS} connections, ${SECONDS} s each; load average at start: ${loadAverage()}`,
  );
  const redis = await startTestRedis();
  try {
    // Redis's CPU per request is read from /proc/<pid>: without the pid it would read 0 for every row.
    if (!redis.pid) throw new Error('the bench redis-server has no pid: its CPU cannot be read');
    const one = await runAt(1, redis.url, redis.pid, null);
    report(1, one.results);
    if (WORKERS < 2) return console.log('one core: nothing to compare');
    const many = await runAt(WORKERS, redis.url, redis.pid, one.access);
    report(WORKERS, many.results);
    for (const [name, single] of one.results) {
      const ratio = many.results.get(name)!.load.rps / single.load.rps;
      figure(`${name}, ${WORKERS} workers / 1`, ratio, 'x', {
        better: 'higher',
        target: TARGET,
        reference: `${name} at 1 worker, same run`,
      });
    }
  } finally {
    await redis.stop();
    console.log(`load average at end: ${loadAverage()} (other work on the machine lowers every figure)`);
  }
}

await main();
