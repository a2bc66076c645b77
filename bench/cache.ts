// Cache service throughput: get, put and increment on one hot key, over HTTP keep-alive with
// 50 clients (autocannon), beside the same operations straight against Redis through the
// cache's own scripts from this process. Run with `npm run bench:cache`; BENCH_SECONDS sets
// the length of each run (default 5). Each HTTP row also gives the server process's CPU per operation
// (from /proc), which other load on the machine moves far less than ops/s. Targets are ratios to
// two floors of the same run: the same operation straight to Redis through the cache's scripts,
// and GET /health (the HTTP stack without Redis).
import os from 'node:os';
import autocannon from 'autocannon';
import * as hdr from 'hdr-histogram-js';
import { Redis } from 'ioredis';
import { CacheStore } from '../src/cache/cache-store.js';
import { KeySpace } from '../src/core/redis.js';
import { startCacheServer } from './lib/cache-server-child.js';
import { cpuSeconds } from './lib/proc-cpu.js';
import { figure, sized, SMOKE } from './lib/report.js';

/** The bench's direct writes are not a tenant's: no quota applies. */
const UNLIMITED = { storedBytes: Number.MAX_SAFE_INTEGER, caches: Number.MAX_SAFE_INTEGER };

const CLIENTS = 50;
/**
 * The least each operation's HTTP rate may be, as a fraction of the same operation straight to
 * Redis from this process (0.25 for GET, about 0.5 for put and increment on the quiet machine of the 11-26 report).
 */
const REDIS_TARGET = 0.2;
const SECONDS = sized('BENCH_SECONDS', 5, 1);
const WARM_UP_SECONDS = 3;
const CACHE = 'bench';
const VALUE = 'v'.repeat(100);

interface Figures {
  opsPerSecond: number;
  p99Ms: number;
  /** The server process's CPU per operation (µs, from /proc); over HTTP only. */
  serverCpuUs?: number;
}

interface Operation {
  name: string;
  http: { method: 'GET' | 'PUT' | 'POST'; path: string; body?: string };
  direct: (store: CacheStore, projectId: string) => Promise<unknown>;
}

const operations: Operation[] = [
  {
    name: 'get',
    http: { method: 'GET', path: `/caches/${CACHE}/items/hot` },
    direct: (store, projectId) => store.get(projectId, CACHE, 'hot'),
  },
  {
    name: 'put',
    http: { method: 'PUT', path: `/caches/${CACHE}/items/put-key`, body: JSON.stringify({ value: VALUE }) },
    direct: (store, projectId) =>
      store.put(
        projectId,
        CACHE,
        'put-key',
        {
          json: JSON.stringify(VALUE),
          expiresIn: 0,
          condition: { kind: 'always' },
        },
        UNLIMITED,
      ),
  },
  {
    name: 'increment (one hot key)',
    http: { method: 'POST', path: `/caches/${CACHE}/items/counter/increment`, body: JSON.stringify({ amount: 1 }) },
    direct: (store, projectId) => store.increment(projectId, CACHE, 'counter', 1, UNLIMITED),
  },
];

const startServer = startCacheServer;

async function overHttp(
  url: string,
  http: Operation['http'],
  token: string,
  serverPid: number,
  seconds = SECONDS,
): Promise<Figures> {
  const cpuBefore = cpuSeconds(serverPid);
  const result = await autocannon({
    url: url + http.path,
    method: http.method,
    body: http.body,
    headers: { authorization: `OAuth ${token}`, 'content-type': 'application/json' },
    connections: CLIENTS,
    duration: seconds,
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${http.method} ${http.path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  const serverCpuUs = ((cpuSeconds(serverPid) - cpuBefore) / result.requests.total) * 1e6;
  return { opsPerSecond: result.requests.total / seconds, p99Ms: result.latency.p99, serverCpuUs };
}

async function straightToRedis(store: CacheStore, projectId: string, operation: Operation): Promise<Figures> {
  const histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60_000_000,
    numberOfSignificantValueDigits: 3,
  });
  const endAt = performance.now() + SECONDS * 1000;
  let done = 0;
  const client = async () => {
    while (performance.now() < endAt) {
      const started = performance.now();
      await operation.direct(store, projectId);
      histogram.recordValue(Math.round((performance.now() - started) * 1000)); // microseconds
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const figures = { opsPerSecond: done / SECONDS, p99Ms: histogram.getValueAtPercentile(99) / 1000 };
  histogram.destroy();
  return figures;
}

function row(cells: (string | number)[]): string {
  return cells.map((cell, i) => String(cell)[i === 0 ? 'padEnd' : 'padStart'](i === 0 ? 24 : 13)).join(' ');
}

async function main() {
  const { child, info } = await startServer();
  const redis = new Redis(info.redisUrl);
  const store = new CacheStore(redis, new KeySpace(info.keyPrefix));
  try {
    await store.put(
      info.projectId,
      CACHE,
      'hot',
      {
        json: JSON.stringify(VALUE),
        expiresIn: 0,
        condition: { kind: 'always' },
      },
      UNLIMITED,
    );
    const projectUrl = `${info.url}/1/projects/${info.projectId}`;
    // Warm-up until the server's JIT has compiled the request path: cold runs read far lower.
    if (!SMOKE)
      for (const operation of operations)
        await overHttp(projectUrl, operation.http, info.token, child.pid!, WARM_UP_SECONDS);
    console.log(`cache benchmark: ${CLIENTS} clients, ${SECONDS}s per run, HTTP keep-alive vs. straight to Redis`);
    const load = os
      .loadavg()
      .map((value) => value.toFixed(1))
      .join(' ');
    console.log(
      `machine: ${os.cpus().length} cores, load average ${load} (other work on the machine lowers every figure)`,
    );
    console.log(
      row(['operation', 'HTTP ops/s', 'HTTP p99 ms', 'Redis ops/s', 'Redis p99 ms', 'HTTP/Redis', 'server µs/op']),
    );
    for (const operation of operations) {
      const http = await overHttp(projectUrl, operation.http, info.token, child.pid!);
      const direct = await straightToRedis(store, info.projectId, operation);
      console.log(
        row([
          operation.name,
          Math.round(http.opsPerSecond),
          http.p99Ms.toFixed(2),
          Math.round(direct.opsPerSecond),
          direct.p99Ms.toFixed(2),
          (http.opsPerSecond / direct.opsPerSecond).toFixed(2),
          http.serverCpuUs!.toFixed(0),
        ]),
      );
      figure(`${operation.name} over HTTP`, http.opsPerSecond, 'ops/s', { better: 'higher' });
      figure(`${operation.name} over HTTP p99`, http.p99Ms, 'ms', { better: 'lower' });
      figure(`${operation.name} server CPU per operation`, http.serverCpuUs!, 'µs', { better: 'lower' });
      figure(`${operation.name} straight to Redis`, direct.opsPerSecond, 'ops/s', { better: 'higher', machine: true });
      figure(`${operation.name} HTTP/Redis`, http.opsPerSecond / direct.opsPerSecond, 'x', {
        better: 'higher',
        target: REDIS_TARGET,
        reference: 'the same operation straight to Redis through the cache scripts, 50 clients',
      });
    }
    // What the HTTP stack alone reaches on this machine now: the ceiling for the rows above.
    const floor = await overHttp(info.url, { method: 'GET', path: '/health' }, info.token, child.pid!);
    console.log(
      row([
        'GET /health (no Redis)',
        Math.round(floor.opsPerSecond),
        floor.p99Ms.toFixed(2),
        '',
        '',
        '',
        floor.serverCpuUs!.toFixed(0),
      ]),
    );
    figure('GET /health (no Redis)', floor.opsPerSecond, 'ops/s', { better: 'higher', machine: true });
    figure('GET /health server CPU per request', floor.serverCpuUs!, 'µs', { better: 'lower' });
  } finally {
    redis.disconnect();
    child.kill('SIGTERM');
  }
}

await main();
