/**
 * Functions benchmark, over HTTP against an all-in-one server (controller + runner) forked as a
 * child process, so the load generator does not share its event loop.
 * (a) Hot: a hot echo function (`http` and `json` formats, max_concurrency 10) under 10
 *     concurrent callers: latency p50/p99 and calls/s (targets: p50 ≤ 5 ms, ≥ 1,000 calls/s).
 * (b) Cold: a `default`-format echo function (one container per call) beside bare
 *     `docker run --rm -i` of the same image at the same concurrency (target ≤ 1.2× its wall time).
 * Each beside bare `docker run --rm -i` runs of the same image, the floor a call without Ferrum pays.
 * BENCH_HOT_CALLS (default 5000), BENCH_COLD_CALLS (40), BENCH_COLD_CALLERS (4) scale it.
 */
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { Pool } from 'undici';
import { HttpClient } from '../test/helpers/http.js';
import { serveInChild } from './lib/child-server.js';
import { figure, sized, SMOKE } from './lib/report.js';

const HOT_CALLS = sized('BENCH_HOT_CALLS', 5000, 50);
const HOT_CALLERS = 10;
const COLD_CALLS = sized('BENCH_COLD_CALLS', 40, 2);
const COLD_CALLERS = sized('BENCH_COLD_CALLERS', 4, 2);
const HOT_IMAGES = { http: 'ferrum-test/fn-hot-http', json: 'ferrum-test/fn-hot-json' } as const;
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

/**
 * The hot figures: 10 callers, then one caller alone (the latency of the call path itself,
 * without calls queueing behind each other for the CPU), and this process's CPU time per call.
 */
async function reportHot(label: string, call: () => Promise<void>, server: ChildProcess): Promise<void> {
  const serverBefore = await cpuOf(server);
  const cpuBefore = process.cpuUsage();
  report(`${label}, ${HOT_CALLERS} callers`, await drive(HOT_CALLS, HOT_CALLERS, call));
  const cpu = process.cpuUsage(cpuBefore);
  const serverAfter = await cpuOf(server);
  const serverCpu = serverAfter.user + serverAfter.system - serverBefore.user - serverBefore.system;
  console.log(
    `    CPU per call: server (controller + runner) ${(serverCpu / HOT_CALLS).toFixed(0)} µs, load generator ${((cpu.user + cpu.system) / HOT_CALLS).toFixed(0)} µs`,
  );
  report(`${label}, 1 caller`, await drive(Math.ceil(HOT_CALLS / 5), 1, call));
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

/** The server child's CPU usage so far. */
function cpuOf(server: ChildProcess): Promise<NodeJS.CpuUsage> {
  return new Promise((resolve) => {
    const onMessage = (message: { cpu?: NodeJS.CpuUsage }) => {
      if (!message.cpu) return;
      server.off('message', onMessage);
      resolve(message.cpu);
    };
    server.on('message', onMessage);
    server.send('cpu');
  });
}

/** Creates the routes through the functions API and measures calls at /r/bench/…. */
async function benchHttp(http: HttpClient, url: string, server: ChildProcess): Promise<void> {
  console.log('Measuring through HTTP: /r/bench/… on an all-in-one server (controller + runner) in a child process.');
  const routes = [
    { path: '/hot-http', image: HOT_IMAGES.http, format: 'http' },
    { path: '/hot-json', image: HOT_IMAGES.json, format: 'json' },
    { path: '/cold', image: COLD_IMAGE, format: 'default' },
  ];
  for (const route of routes) {
    const created = await http.post('/v1/apps/bench/routes', {
      route: { ...route, type: 'sync', memory: MEMORY_MB, max_concurrency: HOT_CALLERS, timeout: 30, idle_timeout: 60 },
    });
    if (created.status >= 300)
      throw new Error(`creating route ${route.path} failed: ${created.status} ${created.text}`);
  }
  const client = new Pool(url, { connections: HOT_CALLERS * 2, pipelining: 1 });
  const call = (routePath: string) => async () => {
    const response = await client.request({
      path: `/r/bench${routePath}`,
      method: 'POST',
      body: BODY,
      headers: { 'content-type': 'application/json' },
    });
    await response.body.arrayBuffer();
    if (response.statusCode !== 200) throw new Error(`call of ${routePath} answered ${response.statusCode}`);
  };
  try {
    for (const format of ['http', 'json'] as const) {
      await drive(SMOKE ? 20 : 500, HOT_CALLERS, call(`/hot-${format}`));
      console.log(
        `(a) hot echo function, ${format} format, ${HOT_CALLERS} callers over HTTP, max_concurrency ${HOT_CALLERS}`,
      );
      await reportHot(`POST /r/bench/hot-${format}`, call(`/hot-${format}`), server);
    }
    await benchBareFloors(call('/cold'), 'POST /r/bench/cold');
  } finally {
    await client.close();
  }
}

/** Forks this script as the server: an all-in-one controller + runner with its own Redis. */
function startServerChild(): Promise<{ child: ChildProcess; url: string; token: string }> {
  const child = fork(process.argv[1]!, [], {
    env: { ...process.env, BENCH_ROLE: 'server' },
    execArgv: process.execArgv,
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { url: string; token: string }) =>
      resolve({ child, url: message.url, token: message.token }),
    );
    child.once('exit', (code) => reject(new Error(`the server child exited with ${code}`)));
  });
}

async function main(): Promise<void> {
  execFileSync('bash', ['scripts/build-test-images.sh'], { stdio: 'inherit' });
  console.log(`machine: ${os.cpus().length} cores, shared with whatever else runs (figures vary with that load)`);
  const server = await startServerChild();
  try {
    await benchHttp(new HttpClient(server.url, server.token), server.url, server.child);
  } finally {
    server.child.removeAllListeners('exit');
    server.child.send('stop');
  }
}

const role =
  process.env.BENCH_ROLE === 'server' ? serveInChild({ FERRUM_RUNNER_NETWORK: 'none' }, { withRunner: true }) : main();
role.then(
  () => {
    if (process.env.BENCH_ROLE !== 'server') process.exit(0);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
