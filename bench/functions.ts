/**
 * Functions benchmark, over HTTP against an all-in-one server (controller + runner) forked as a
 * child process; the load generator is wrk (a separate, non-Node process: `apt-get install -y wrk`).
 * (a) Hot: a hot echo function in each format (`http-stream`, `json`, `http`; max_concurrency 10)
 *     under 10 concurrent callers, beside an authenticated cache GET at the same concurrency:
 *     latency p50/p99, calls/s, server CPU per call (the server process, from /proc).
 *     Targets: http-stream p50 <= 3 ms, p99 <= 10 ms, >= 0.1x the cache GET's req/s, CPU per call
 *     <= 3x the cache GET's (both in the same run); json and http >= 2x their throughput before (418-498, 225-362 calls/s).
 * (b) Cold: a `default`-format echo function (one container per call) beside bare
 *     `docker run --rm -i` of the same image at the same concurrency (target <= 1.2x its wall time).
 * BENCH_SMOKE=1 runs (a) for 1 s per case and skips (b); BENCH_HOT_SECONDS (default 10),
 * BENCH_COLD_CALLS (40), BENCH_COLD_CALLERS (4) scale it.
 */
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { Pool } from 'undici';
import path from 'node:path';
import { HttpClient } from '../test/helpers/http.js';
import {
  containerProcessesUnder,
  contextSwitches,
  cpuSplit,
  engineGroups,
  treeOf,
  type CpuGroups,
} from './lib/cpu-split.js';
import { serveInChild } from './lib/child-server.js';
import { figure, sized, SMOKE } from './lib/report.js';
import { wrk as runWrk, type LoadFigures, type WrkRequest } from './lib/wrk.js';

/** wrk with the hot callers' connection count. */
function wrk(url: string, seconds: number, request: WrkRequest, serverPid: number): Promise<LoadFigures> {
  return runWrk(url, { seconds, connections: HOT_CALLERS, serverPid }, request);
}

/** The server's function containers mount their socket folders from here (so the bench finds their processes). */
const SOCKET_DIR = path.join(os.tmpdir(), `ferrum-bench-sockets-${process.env.BENCH_SOCKETS ?? process.pid}`);

/** Where each call's CPU goes besides the server process: its Redis, the engine, the function processes. */
function groupsOf(serverPid: number): CpuGroups {
  return {
    redis: () => treeOf(serverPid).filter((pid) => pid !== serverPid),
    functions: () => containerProcessesUnder(SOCKET_DIR),
    ...engineGroups(),
  };
}

/** wrk, and the CPU per request of each group of processes over the same run. */
async function wrkSplit(
  url: string,
  request: WrkRequest,
  serverPid: number,
): Promise<{ figures: LoadFigures; split: Record<string, number>; switches: number }> {
  const since = cpuSplit(groupsOf(serverPid));
  const switched = contextSwitches(serverPid);
  const figures = await wrk(url, HOT_SECONDS, request, serverPid);
  const switches = (contextSwitches(serverPid) - switched) / figures.requests;
  return { figures, split: since(figures.requests), switches };
}

/** The other processes' CPU per request, and how often the server's event loop slept (or was preempted) per request. */
function splitLine({ split, switches }: { split: Record<string, number>; switches: number }): string {
  const parts = Object.entries(split).map(([name, us]) => `${name} ${us.toFixed(0)}`);
  return `      other CPU per request (µs, from /proc): ${parts.join(', ')}; server context switches per request ${switches.toFixed(2)}`;
}

const HOT_SECONDS = SMOKE ? 1 : Number(process.env.BENCH_HOT_SECONDS ?? 10);
const WARM_SECONDS = SMOKE ? 1 : 3;
const HOT_CALLERS = 10;
const COLD_CALLS = sized('BENCH_COLD_CALLS', 40, 2);
const COLD_CALLERS = sized('BENCH_COLD_CALLERS', 4, 2);
const HOT_IMAGES = {
  'http-stream': 'ferrum-test/fn-hot-stream',
  http: 'ferrum-test/fn-hot-http',
  json: 'ferrum-test/fn-hot-json',
} as const;
type HotFormat = keyof typeof HOT_IMAGES;
/** BENCH_FORMATS=http-stream (comma-separated) measures only those formats, e.g. to profile one. */
const HOT_FORMATS = (process.env.BENCH_FORMATS?.split(',') ?? Object.keys(HOT_IMAGES)) as HotFormat[];
const COLD_IMAGE = 'ferrum-test/fn-cold-echo';
const MEMORY_MB = 128;
const BODY = Buffer.from('{"hello":"ferrum"}');

interface Figures {
  /** Sorted, in ms. */
  latencies: number[];
  wallMs: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** `total` calls by `callers` concurrent callers, each call timed. */
async function drive(total: number, callers: number, call: () => Promise<void>): Promise<Figures> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const caller = async () => {
    while (next++ < total) {
      const begun = performance.now();
      await call();
      latencies.push(performance.now() - begun);
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  return { latencies: latencies.sort((a, b) => a - b), wallMs: performance.now() - started };
}

function report(label: string, figures: Figures): void {
  const { latencies, wallMs } = figures;
  const rate = latencies.length / (wallMs / 1000);
  console.log(
    `    ${label}: p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms, ${rate.toFixed(0)} calls/s (${latencies.length} calls, ${(wallMs / 1000).toFixed(1)} s)`,
  );
  figure(`${label} p50`, percentile(latencies, 50), 'ms', { better: 'lower' });
  figure(`${label} rate`, rate, 'calls/s', { better: 'higher' });
}

function line(label: string, figures: LoadFigures, cache?: LoadFigures): string {
  const ratios = cache
    ? `, ${(figures.rps / cache.rps).toFixed(2)}x the cache GET's req/s, ${(figures.cpuUs / cache.cpuUs).toFixed(1)}x its CPU`
    : '';
  return `    ${label.padEnd(34)} p50 ${figures.p50Ms.toFixed(2)} ms, p99 ${figures.p99Ms.toFixed(2)} ms, ${figures.rps.toFixed(0)} req/s, server CPU ${figures.cpuUs.toFixed(0)} µs/req${ratios}`;
}

/** One request of the image's format, for a bare run that serves exactly one call. */
function bareRequestOf(format: 'http' | 'json' | 'default'): Buffer {
  if (format === 'default') return BODY;
  if (format === 'json') {
    return Buffer.from(
      `${JSON.stringify({ call_id: 'bare', type: 'sync', body: BODY.toString(), protocol: { type: 'http', method: 'POST', request_url: 'http://localhost/r/bench/hot', headers: {} } })}\n`,
    );
  }
  return Buffer.concat([
    Buffer.from(`POST /r/bench/hot HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${BODY.length}\r\n\r\n`),
    BODY,
  ]);
}

/** `docker run --rm -i` of the image with the request on stdin; resolves when it has exited. */
function bareDockerRun(image: string, request: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker', ['run', '--rm', '-i', '--network', 'none', '--memory', `${MEMORY_MB}m`, image], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let output = 0;
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.length));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 && output > 0
        ? resolve()
        : reject(new Error(`docker run ${image} exited with ${code}, ${output} bytes of output`)),
    );
    child.stdin.end(request);
  });
}

/** Runs `ferrum` and `bare` in alternating halves so both see the same background load. */
async function beside(
  calls: number,
  callers: number,
  ferrum: () => Promise<void>,
  bare: () => Promise<void>,
): Promise<[Figures, Figures]> {
  const half = Math.ceil(calls / 2);
  const merge = (a: Figures, b: Figures): Figures => ({
    latencies: [...a.latencies, ...b.latencies].sort((x, y) => x - y),
    wallMs: a.wallMs + b.wallMs,
  });
  const ferrumFirst = await drive(half, callers, ferrum);
  const bareFirst = await drive(half, callers, bare);
  const bareSecond = await drive(calls - half, callers, bare);
  const ferrumSecond = await drive(calls - half, callers, ferrum);
  return [merge(ferrumFirst, ferrumSecond), merge(bareFirst, bareSecond)];
}

async function benchBareFloors(coldCall: () => Promise<void>, coldLabel: string): Promise<void> {
  console.log(`    floor: bare docker run --rm -i of ${HOT_IMAGES.http}, one call each, ${COLD_CALLERS} at a time`);
  report(
    `docker run --rm -i of ${HOT_IMAGES.http}`,
    await drive(Math.min(COLD_CALLS, 20), COLD_CALLERS, () => bareDockerRun(HOT_IMAGES.http, bareRequestOf('http'))),
  );
  await coldCall(); // the first container of an image pays for caches the rest share
  console.log(
    `(b) cold echo function (${COLD_IMAGE}, one container per call), ${COLD_CALLS} calls, ${COLD_CALLERS} at a time`,
  );
  const [cold, bare] = await beside(COLD_CALLS, COLD_CALLERS, coldCall, () =>
    bareDockerRun(COLD_IMAGE, bareRequestOf('default')),
  );
  report(coldLabel, cold);
  report(`docker run --rm -i of ${COLD_IMAGE}`, bare);
  console.log(`    ratio cold/bare wall time: ${(cold.wallMs / bare.wallMs).toFixed(2)}x (target <= 1.2x)`);
  figure('cold calls/bare docker run wall time', cold.wallMs / bare.wallMs, 'x', {
    better: 'lower',
    target: 1.2,
    reference: 'bare docker run --rm -i of the same image, same concurrency',
  });
}

/**
 * The cache GET again, each caller pausing between requests so that the rate comes near the
 * http-stream calls': a server that is idle between requests pays for each wake-up alone, so
 * this tells how much of the CPU ratio is the lower rate rather than the call's own work.
 */
async function benchPacedCache(url: string, request: WrkRequest, pid: number, stream: LoadFigures): Promise<void> {
  const pauseMs = Math.max(1, Math.round((HOT_CALLERS / stream.rps) * 1000 - 0.5));
  const run = await wrkSplit(url, { ...request, lua: `function delay() return ${pauseMs} end` }, pid);
  console.log(
    `${line(`GET cache item, ${pauseMs} ms pauses`, run.figures)}, http-stream is ${(stream.cpuUs / run.figures.cpuUs).toFixed(1)}x its CPU`,
  );
  console.log(splitLine(run));
}

/** Creates the routes through the functions API and measures calls at /r/bench/…. */
async function benchHttp(http: HttpClient, url: string, server: ChildProcess, projectId: string, token: string) {
  console.log('Measuring through HTTP: /r/bench/… on an all-in-one server (controller + runner) in a child process.');
  const routes = [
    ...Object.entries(HOT_IMAGES).map(([format, image]) => ({ path: `/hot-${format}`, image, format })),
    { path: '/cold', image: COLD_IMAGE, format: 'default' },
  ];
  for (const route of routes) {
    const created = await http.post('/v1/apps/bench/routes', {
      route: {
        ...route,
        type: 'sync',
        memory: MEMORY_MB,
        max_concurrency: HOT_CALLERS,
        timeout: 30,
        idle_timeout: 120,
      },
    });
    if (created.status >= 300)
      throw new Error(`creating route ${route.path} failed: ${created.status} ${created.text}`);
  }
  const cachePath = `/1/projects/${projectId}/caches/bench/items/hot`;
  const put = await http.request('PUT', cachePath, {
    raw: JSON.stringify({ value: 'a cached value' }),
    headers: { 'content-type': 'application/json' },
  });
  if (put.status !== 200) throw new Error(`cache put failed: ${put.status} ${put.text}`);
  const pid = server.pid!;
  const cacheGet = { method: 'GET', headers: { authorization: `OAuth ${token}` } };
  const callOf = { method: 'POST', body: BODY, headers: { 'content-type': 'application/json' } };
  console.log(
    `(a) hot echo functions, ${HOT_CALLERS} callers (wrk), max_concurrency ${HOT_CALLERS}, ${HOT_SECONDS} s each`,
  );
  await wrk(url + cachePath, WARM_SECONDS, cacheGet, pid);
  const cacheRun = await wrkSplit(url + cachePath, cacheGet, pid);
  const cache = cacheRun.figures;
  console.log(line('GET cache item (authenticated)', cache));
  console.log(splitLine(cacheRun));
  const hot: Partial<Record<HotFormat, LoadFigures>> = {};
  for (const format of HOT_FORMATS) {
    // Warm-up: the containers start (10 calls at once), then the server's JIT compiles the call path.
    const started = await Promise.all(
      Array.from({ length: HOT_CALLERS }, () =>
        fetch(`${url}/r/bench/hot-${format}`, { method: 'POST', body: BODY, headers: callOf.headers }),
      ),
    );
    if (started.some((response) => response.status !== 200)) throw new Error(`warming hot-${format} failed`);
    await wrk(`${url}/r/bench/hot-${format}`, WARM_SECONDS, callOf, pid).catch(() => null);
    const run = await wrkSplit(`${url}/r/bench/hot-${format}`, callOf, pid);
    hot[format] = run.figures;
    console.log(line(`POST /r/bench/hot-${format}`, run.figures, cache));
    console.log(splitLine(run));
  }
  if (hot['http-stream']) await benchPacedCache(url + cachePath, cacheGet, pid, hot['http-stream']);
  if (HOT_FORMATS.length < Object.keys(HOT_IMAGES).length) return; // a partial run prints its lines only
  const stream = hot['http-stream']!;
  const reference = `authenticated cache GET, ${HOT_CALLERS} callers, same run`;
  figure('hot http-stream p50', stream.p50Ms, 'ms', { better: 'lower', target: 3 });
  figure('hot http-stream p99', stream.p99Ms, 'ms', { better: 'lower', target: 10 });
  figure('hot http-stream req/s / cache GET req/s', stream.rps / cache.rps, 'x', {
    better: 'higher',
    target: 0.1,
    reference,
  });
  figure('hot http-stream server CPU / cache GET', stream.cpuUs / cache.cpuUs, 'x', {
    better: 'lower',
    target: 3,
    reference,
  });
  figure('hot json rate', hot.json!.rps, 'calls/s', { better: 'higher', target: 996 });
  figure('hot http rate', hot.http!.rps, 'calls/s', { better: 'higher', target: 724 });
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log(
    `    targets: http-stream p50 <= 3 ms: ${verdict(stream.p50Ms <= 3)}; p99 <= 10 ms: ${verdict(stream.p99Ms <= 10)}; ` +
      `>= 0.1x cache req/s: ${verdict(stream.rps >= 0.1 * cache.rps)}; CPU <= 3x cache: ${verdict(stream.cpuUs <= 3 * cache.cpuUs)}`,
  );
  console.log(
    `    json ${hot.json!.rps.toFixed(0)} calls/s (before 418-498: target >= 996: ${verdict(hot.json!.rps >= 996)}), ` +
      `http ${hot.http!.rps.toFixed(0)} calls/s (before 225-362: target >= 724: ${verdict(hot.http!.rps >= 724)})`,
  );
  if (SMOKE) return;
  const client = new Pool(url, { connections: COLD_CALLERS * 2, pipelining: 1 });
  const cold = async () => {
    const response = await client.request({
      path: '/r/bench/cold',
      method: 'POST',
      body: BODY,
      headers: { 'content-type': 'application/json' },
    });
    await response.body.arrayBuffer();
    if (response.statusCode !== 200) throw new Error(`cold call answered ${response.statusCode}`);
  };
  try {
    await benchBareFloors(cold, 'POST /r/bench/cold');
  } finally {
    await client.close();
  }
}

/** Forks this script as the server: an all-in-one controller + runner with its own Redis. */
function startServerChild(): Promise<{ child: ChildProcess; url: string; token: string; projectId: string }> {
  const child = fork(process.argv[1]!, [], {
    env: { ...process.env, BENCH_ROLE: 'server', BENCH_SOCKETS: String(process.pid) },
    // BENCH_PROFILE=1: a --cpu-prof profile of the server in /tmp/prof.
    execArgv: [...process.execArgv, ...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : [])],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { url: string; token: string; projectId: string }) =>
      resolve({ child, url: message.url, token: message.token, projectId: message.projectId }),
    );
    child.once('exit', (code) => reject(new Error(`the server child exited with ${code}`)));
  });
}

async function main(): Promise<void> {
  execFileSync('bash', ['scripts/build-test-images.sh'], { stdio: 'inherit' });
  console.log(`machine: ${os.cpus().length} cores, shared with whatever else runs (figures vary with that load)`);
  const server = await startServerChild();
  try {
    await benchHttp(new HttpClient(server.url, server.token), server.url, server.child, server.projectId, server.token);
  } finally {
    server.child.removeAllListeners('exit');
    server.child.send('stop');
  }
}

const role =
  process.env.BENCH_ROLE === 'server'
    ? serveInChild({ FERRUM_RUNNER_NETWORK: 'none', FERRUM_FUNCTIONS_SOCKET_DIR: SOCKET_DIR }, { withRunner: true })
    : main();
role.then(
  () => {
    if (process.env.BENCH_ROLE !== 'server') process.exit(0);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
