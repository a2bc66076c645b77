/**
 * Functions benchmark, over HTTP against an all-in-one server (controller + runner) forked as a
 * child process; the load generator is wrk (a separate, non-Node process: `apt-get install -y wrk`).
 * (a) Hot: a hot echo function in each format (`http-stream`, `json`, `http`; max_concurrency 10)
 *     under 10 concurrent callers, beside an authenticated cache GET at the same concurrency:
 *     latency p50/p99, calls/s, server CPU per call (the server process, from /proc).
 *     Targets, each a ratio to a reference or floor of the same run: http-stream p50 and p99 <= 1.2x
 *     the floor's (below), >= 0.1x the cache GET's req/s, CPU per call <= 3x the cache GET's paced to
 *     the same rate (see streamTargets; the unpaced ratio is printed too); json and http >= 0.033x
 *     and 0.024x the cache GET's req/s (HOT_RATE_TARGETS).
 *     Beside the http-stream calls, their floor: the same calls relayed to the same containers by
 *     a bare node:http + undici server in its own process (stream-floor-server.ts), at full speed
 *     (its p50) and paced to the calls' rate (its CPU per call). Each run prints where the CPU per
 *     request goes: the server, its Redis, the function processes, dockerd, containerd + shims;
 *     and Ferrum's server idle CPU (no call under way: its loops and timers), which at the calls'
 *     rate is a share of each call's CPU the floor, a process with no background work, does not pay.
 * (b) Cold: a `default`-format echo function (one container per call) beside bare
 *     `docker run --rm -i` of the same image at the same concurrency (target <= 1.2x its wall time).
 * Each measured side first gets BENCH_WARM_CALLS requests (5,000; see WARM_CALLS): V8's optimized code, not its warm-up.
 * BENCH_SMOKE=1 runs (a) for 1 s per case and skips (b); BENCH_HOT_CALLERS (default 10), BENCH_HOT_SECONDS (default 10),
 * BENCH_COLD_CALLS (40), BENCH_COLD_CALLERS (4) scale it.
 * BENCH_PROFILE=1 writes CPU profiles to /tmp/prof (BENCH_PROFILE_DIR: another folder): the server's over each measured hot run and the
 * paced cache GET's alone (functions-<run>.cpuprofile, phase-profile.ts), the floor's over its life
 * (--cpu-prof); the profiler's own cost is in that run's CPU figures (BENCH_PROFILE_INTERVAL_US sets the
 * sampling interval, default 1000 µs).
 */
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { Pool } from 'undici';
import path from 'node:path';
import { HttpClient } from '../test/helpers/http.js';
import {
  containerProcessesLabelled,
  contextSwitches,
  cpuSplit,
  engineGroups,
  treeOf,
  type CpuGroups,
  type GroupCpu,
} from './lib/cpu-split.js';
import { serveInChild } from './lib/child-server.js';
import { profiled } from './lib/phase-profile.js';
import { cpuSeconds } from './lib/proc-cpu.js';
import { serveStreamFloor } from './lib/stream-floor-server.js';
import { figure, sized, SMOKE } from './lib/report.js';
import { wrk as runWrk, type LoadFigures, type WrkRequest } from './lib/wrk.js';

/** wrk with the hot callers' connection count. */
function wrk(url: string, seconds: number, request: WrkRequest, serverPid: number): Promise<LoadFigures> {
  return runWrk(url, { seconds, connections: HOT_CALLERS, serverPid }, request);
}

/** The bench's own process id, in the server and the floor too (which it forks). */
const BENCH_ID = process.env.BENCH_SOCKETS ?? String(process.pid);
const PROFILE_DIR = process.env.BENCH_PROFILE ? (process.env.BENCH_PROFILE_DIR ?? '/tmp/prof') : null;

/** `run`, with the server's CPU profiled over it into PROFILE_DIR/functions-`name`.cpuprofile when BENCH_PROFILE is set. */
function profiledRun<T>(server: ChildProcess, name: string, run: () => Promise<T>): Promise<T> {
  return PROFILE_DIR ? profiled(server, path.join(PROFILE_DIR, `functions-${name}.cpuprofile`), run) : run();
}

/** The server's http-stream containers have their socket folders here (the floor finds their sockets in it). */
const SOCKET_DIR = path.join(os.tmpdir(), `ferrum-bench-sockets-${BENCH_ID}`);
/** The server's runner id, so that its function containers (labelled with it) are told from others on the machine. */
const RUNNER_ID = `bench-functions-${BENCH_ID}`;
const RUNNER_LABEL = `ferrum.runner=${RUNNER_ID}`;

/** Where each call's CPU goes besides the server process: its Redis, the engine, the function processes. */
function groupsOf(serverPid: number): CpuGroups {
  return {
    redis: () => treeOf(serverPid).filter((pid) => pid !== serverPid),
    functions: () => containerProcessesLabelled(RUNNER_LABEL),
    ...engineGroups(),
  };
}

/** Where each floor call's CPU goes besides the floor process: the engine, the function processes, and Ferrum's server (which still frames the calls' relayed stderr). */
function floorGroupsOf(ferrumPid: number): CpuGroups {
  return {
    'Ferrum server': () => [ferrumPid],
    functions: () => containerProcessesLabelled(RUNNER_LABEL),
    ...engineGroups(),
  };
}

interface SplitRun {
  figures: LoadFigures;
  /** Each group's CPU per request, the measured server's first. */
  split: Record<string, GroupCpu>;
  switches: number;
}

/** wrk, and the CPU per request of the server (named `server`) and each other group of processes over the same run. */
async function wrkSplit(
  url: string,
  request: WrkRequest,
  serverPid: number,
  groups: CpuGroups = groupsOf(serverPid),
  server = 'server',
): Promise<SplitRun> {
  const since = cpuSplit({ [server]: () => [serverPid], ...groups });
  const switched = contextSwitches(serverPid);
  const figures = await wrk(url, HOT_SECONDS, request, serverPid);
  const switches = (contextSwitches(serverPid) - switched) / figures.requests;
  return { figures, split: since(figures.requests), switches };
}

/**
 * Each process group's CPU per request, with the part spent in the kernel on its behalf (socket
 * and pipe writes and reads, wake-ups), and how often the measured server's event loop slept
 * (or was preempted) per request.
 */
function splitLine({ split, switches }: SplitRun): string {
  const groups = Object.entries(split);
  const parts = groups.map(([name, { us, kernelUs }]) => `${name} ${us.toFixed(0)} (kernel ${kernelUs.toFixed(0)})`);
  const total = groups.reduce((sum, [, { us }]) => sum + us, 0);
  const kernel = groups.reduce((sum, [, { kernelUs }]) => sum + kernelUs, 0);
  return (
    `      CPU per request (µs, from /proc): ${parts.join(', ')}; total ${total.toFixed(0)} (kernel ${kernel.toFixed(0)}); ` +
    `${groups[0]![0]} context switches per request ${switches.toFixed(2)}`
  );
}

const HOT_SECONDS = SMOKE ? 1 : Number(process.env.BENCH_HOT_SECONDS ?? 10);
// A smoke run proves the bench works: no warm-up, whose only use is steadier figures.
const WARM_SECONDS = SMOKE ? 0 : 3;
/**
 * Requests each measured side (the cache GET, each hot format, the floor) first gets, in
 * WARM_SECONDS rounds, at most WARM_MAX_SECONDS: a warm-up by count, not by time. V8 optimizes
 * Ferrum's call path (some 550 functions) only after thousands of calls, the floor's few
 * functions after far fewer: on a loaded machine 3 s gave Ferrum a few hundred calls, and its
 * CPU per call was then mostly baseline code and TurboFan compiling (2.2 ms against 0.8 ms
 * after 6,000 calls), a start-up cost rather than a hot call's.
 */
const WARM_CALLS = Number(process.env.BENCH_WARM_CALLS ?? 5000);
const WARM_MAX_SECONDS = 90;
/** wrk in WARM_SECONDS rounds until the server has answered WARM_CALLS requests (or WARM_MAX_SECONDS passed). */
async function warmUp(url: string, request: WrkRequest, serverPid: number): Promise<void> {
  if (WARM_SECONDS === 0) return;
  const started = performance.now();
  let answered = 0;
  do answered += (await wrk(url, WARM_SECONDS, request, serverPid)).requests;
  while (answered < WARM_CALLS && performance.now() - started < WARM_MAX_SECONDS * 1000);
}

/** How long Ferrum's server is watched with no call, for its idle CPU. */
const IDLE_SECONDS = SMOKE ? 1 : 5;
/** BENCH_HOT_CALLERS=1 tells the latency of a call alone from that of calls contending for the cores. */
const HOT_CALLERS = Number(process.env.BENCH_HOT_CALLERS ?? 10);
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
async function benchPacedCache(
  url: string,
  request: WrkRequest,
  server: ChildProcess,
  stream: LoadFigures,
): Promise<LoadFigures> {
  const { pauseMs, lua } = pauseTowards(stream);
  const run = await profiledRun(server, 'paced-cache-get', () => wrkSplit(url, { ...request, lua }, server.pid!));
  console.log(
    `${line(`GET cache item, ${pauseMs} ms pauses`, run.figures)}, http-stream is ${(stream.cpuUs / run.figures.cpuUs).toFixed(1)}x its CPU`,
  );
  console.log(splitLine(run));
  return run.figures;
}

/** The sockets of the running `http-stream` containers (the only hot format that listens on one). */
function streamSockets(): string[] {
  return fs
    .readdirSync(SOCKET_DIR)
    .map((dir) => path.join(SOCKET_DIR, dir, 'lsnr.sock'))
    .filter((socket) => fs.existsSync(socket));
}

/** A wrk pause between each caller's requests that brings their rate near the `paced` run's. */
function pauseTowards(paced: LoadFigures): { pauseMs: number; lua: string } {
  const pauseMs = Math.max(1, Math.round((HOT_CALLERS / paced.rps) * 1000 - 0.5));
  return { pauseMs, lua: `function delay() return ${pauseMs} end` };
}

interface FloorFigures {
  /** At full speed, as the http-stream calls ran: the latency floor. */
  full: LoadFigures;
  /** Paced to the http-stream calls' rate: the CPU floor (a process idle between calls pays for each wake-up alone). */
  paced: LoadFigures;
}

/**
 * The floor beside Ferrum's http-stream calls: the same calls relayed to the same hot containers
 * by a bare Node HTTP server with undici (stream-floor-server.ts), in a process of its own, at
 * full speed and paced to the calls' rate. What Ferrum's server spends above the paced floor's
 * CPU per call is Ferrum's own.
 */
async function benchFloor(request: WrkRequest, ferrumPid: number, stream: LoadFigures): Promise<FloorFigures> {
  const idle = await idleCpuMsPerSecond(ferrumPid);
  const floor = await startChild<{ url: string }>('floor', { BENCH_FLOOR_SOCKETS: streamSockets().join(',') });
  try {
    const url = `${floor.message.url}/r/bench/hot-http-stream`;
    const pid = floor.child.pid!;
    await warmUp(url, request, pid);
    const full = await wrkSplit(url, request, pid, floorGroupsOf(ferrumPid), 'floor');
    console.log(line('floor: node:http + undici, same fns', full.figures));
    console.log(splitLine(full));
    const { pauseMs, lua } = pauseTowards(stream);
    const paced = await wrkSplit(url, { ...request, lua }, pid, floorGroupsOf(ferrumPid), 'floor');
    console.log(line(`floor, ${pauseMs} ms pauses`, paced.figures));
    console.log(splitLine(paced));
    console.log(
      `    http-stream over the floor: p50 ${stream.p50Ms.toFixed(2)} vs ${full.figures.p50Ms.toFixed(2)} ms (floor at full speed); ` +
        `server CPU ${stream.cpuUs.toFixed(0)} vs ${paced.figures.cpuUs.toFixed(0)} µs/call at the same rate ` +
        `(${(stream.cpuUs / paced.figures.cpuUs).toFixed(1)}x the paced floor's; ${full.figures.cpuUs.toFixed(0)} µs at full speed)`,
    );
    // The floor leaves the calls' stderr to Ferrum's server (it still attaches to the containers),
    // whose loops and timers run meanwhile as they do between calls: its idle rate tells them apart.
    const relay = paced.split['Ferrum server']!.us;
    const idleShare = (idle * 1000) / paced.figures.rps;
    console.log(
      `    of Ferrum's ${stream.cpuUs.toFixed(0)} µs/call: the floor's data path ${paced.figures.cpuUs.toFixed(0)}, ` +
        `Ferrum's server meanwhile ${relay.toFixed(0)} (its idle work ${idleShare.toFixed(0)}: ${idle.toFixed(1)} ms a second with no call; ` +
        `the calls' stderr read and framed ${(relay - idleShare).toFixed(0)}), ` +
        `the rest ${(stream.cpuUs - paced.figures.cpuUs - relay).toFixed(0)}: admission, fastify, records, metrics, timers`,
    );
    figure('hot http-stream server idle CPU', idle, 'ms/s', { better: 'lower' });
    return { full: full.figures, paced: paced.figures };
  } finally {
    floor.child.removeAllListeners('exit');
    floor.child.send('stop');
  }
}

/**
 * Ferrum's server CPU with no call under way (its background loops, timers and metrics), in ms
 * a second: at tens of calls a second, a share of every call's CPU that the floor does not have.
 */
async function idleCpuMsPerSecond(pid: number): Promise<number> {
  const before = cpuSeconds(pid);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  return ((cpuSeconds(pid) - before) * 1000) / ((performance.now() - started) / 1000);
}

const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

/** http-stream's p50 and p99 targets: at most this many times the floor's (the bare relay) in the same run. */
const STREAM_LATENCY_TARGET = 1.2;
/** Server CPU per hot http-stream call, against the paced floor's (issue 48, must-have 3). */
const STREAM_CPU_TARGET = 1.3;
/**
 * json's and http's rate targets as ratios to the cache GET's in the same run: the earlier absolute
 * targets (996 and 724 calls/s, twice their rates before) over the cache GET's 30k req/s on the
 * machine they were set on.
 */
const HOT_RATE_TARGETS = { json: 0.033, http: 0.024 };

/**
 * The http-stream targets against the same run's references. The CPU target is carried by the
 * cache GET paced to the calls' rate: at 10 unpaced callers the cache GET runs ~10x faster, so
 * its server batches several requests per wake-up and its CPU per request is mostly the work
 * itself, while a hot call's includes a wake-up (epoll, the socket's reads and writes alone) that
 * its rate, not Ferrum, pays for. The unpaced ratio stays printed; the floor shows what the same
 * data path costs without Ferrum at the same rate.
 */
function streamTargets(stream: LoadFigures, cache: LoadFigures, paced: LoadFigures, floor: FloorFigures): string {
  const reference = `authenticated cache GET paced to the calls' rate, ${HOT_CALLERS} callers, same run`;
  const relay = 'node:http + undici relay to the same containers at full speed, same run';
  figure('hot http-stream p50', stream.p50Ms, 'ms', { better: 'lower' });
  figure('hot http-stream p50 over the floor', stream.p50Ms - floor.full.p50Ms, 'ms', { better: 'lower' });
  figure('hot http-stream p99', stream.p99Ms, 'ms', { better: 'lower' });
  figure('hot http-stream floor p50', floor.full.p50Ms, 'ms', { better: 'lower', reference: relay, machine: true });
  figure('hot http-stream floor p99', floor.full.p99Ms, 'ms', { better: 'lower', reference: relay, machine: true });
  for (const p of ['p50Ms', 'p99Ms'] as const)
    figure(`hot http-stream ${p.slice(0, 3)} / the floor's`, stream[p] / floor.full[p], 'x', {
      better: 'lower',
      target: STREAM_LATENCY_TARGET,
      reference: relay,
    });
  figure('cache GET rate', cache.rps, 'req/s', {
    better: 'higher',
    reference: `authenticated cache GET, ${HOT_CALLERS} callers`,
    machine: true,
  });
  figure('hot http-stream req/s / cache GET req/s', stream.rps / cache.rps, 'x', {
    better: 'higher',
    target: 0.1,
    reference: `authenticated cache GET, ${HOT_CALLERS} callers, same run`,
  });
  figure('hot http-stream server CPU / paced cache GET', stream.cpuUs / paced.cpuUs, 'x', {
    better: 'lower',
    target: 3,
    reference,
  });
  figure('hot http-stream server CPU / cache GET', stream.cpuUs / cache.cpuUs, 'x', { better: 'lower' });
  // Issue 48's must-have 3: server CPU per call at most 1.3x the paced floor's.
  figure('hot http-stream server CPU / paced floor', stream.cpuUs / floor.paced.cpuUs, 'x', {
    better: 'lower',
    target: STREAM_CPU_TARGET,
    reference: 'node:http + undici relay to the same containers, paced to the same rate, same run',
  });
  return (
    `    targets: http-stream p50 <= ${STREAM_LATENCY_TARGET}x the floor's: ${verdict(stream.p50Ms <= STREAM_LATENCY_TARGET * floor.full.p50Ms)} (floor ${floor.full.p50Ms.toFixed(2)} ms); ` +
    `p99 <= ${STREAM_LATENCY_TARGET}x the floor's: ${verdict(stream.p99Ms <= STREAM_LATENCY_TARGET * floor.full.p99Ms)} (floor ${floor.full.p99Ms.toFixed(2)} ms); >= 0.1x cache req/s: ${verdict(stream.rps >= 0.1 * cache.rps)}; ` +
    `CPU <= 3x the paced cache GET: ${verdict(stream.cpuUs <= 3 * paced.cpuUs)} (${(stream.cpuUs / paced.cpuUs).toFixed(1)}x; ` +
    `${(stream.cpuUs / cache.cpuUs).toFixed(1)}x the unpaced one); CPU <= ${STREAM_CPU_TARGET}x the paced floor's: ` +
    `${verdict(stream.cpuUs <= STREAM_CPU_TARGET * floor.paced.cpuUs)} (${(stream.cpuUs / floor.paced.cpuUs).toFixed(1)}x)`
  );
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
  await warmUp(url + cachePath, cacheGet, pid);
  const cacheRun = await wrkSplit(url + cachePath, cacheGet, pid);
  const cache = cacheRun.figures;
  console.log(line('GET cache item (authenticated)', cache));
  console.log(splitLine(cacheRun));
  const hot: Partial<Record<HotFormat, LoadFigures>> = {};
  let floor: FloorFigures | undefined;
  for (const format of HOT_FORMATS) {
    // Warm-up: the containers start (10 calls at once), then the server's JIT compiles the call path.
    const started = await Promise.all(
      Array.from({ length: HOT_CALLERS }, () =>
        fetch(`${url}/r/bench/hot-${format}`, { method: 'POST', body: BODY, headers: callOf.headers }),
      ),
    );
    if (started.some((response) => response.status !== 200)) throw new Error(`warming hot-${format} failed`);
    await warmUp(`${url}/r/bench/hot-${format}`, callOf, pid).catch(() => null);
    const run = await profiledRun(server, `hot-${format}`, () => wrkSplit(`${url}/r/bench/hot-${format}`, callOf, pid));
    hot[format] = run.figures;
    console.log(line(`POST /r/bench/hot-${format}`, run.figures, cache));
    console.log(splitLine(run));
    // At once, while the http-stream containers are still up: the next format's may take their place.
    if (format === 'http-stream') floor = await benchFloor(callOf, pid, run.figures);
  }
  const stream = hot['http-stream'];
  if (!stream || !floor) return;
  const paced = await benchPacedCache(url + cachePath, cacheGet, server, stream);
  console.log(streamTargets(stream, cache, paced, floor));
  if (HOT_FORMATS.length < Object.keys(HOT_IMAGES).length) return; // a partial run prints its lines only
  const cacheReference = `authenticated cache GET, ${HOT_CALLERS} callers, same run`;
  for (const format of ['json', 'http'] as const) {
    const ratio = hot[format]!.rps / cache.rps;
    figure(`hot ${format} rate`, hot[format]!.rps, 'calls/s', { better: 'higher' });
    figure(`hot ${format} rate / cache GET rate`, ratio, 'x', {
      better: 'higher',
      target: HOT_RATE_TARGETS[format],
      reference: cacheReference,
    });
    console.log(
      `    ${format} ${hot[format]!.rps.toFixed(0)} calls/s, ${ratio.toFixed(3)}x the cache GET's: target >= ${HOT_RATE_TARGETS[format]}x: ${verdict(ratio >= HOT_RATE_TARGETS[format])}`,
    );
  }
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

/** Forks this script in `role`; resolves with the first message it sends (its address). */
function startChild<Message>(
  role: 'server' | 'floor',
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; message: Message }> {
  const child = fork(process.argv[1]!, [], {
    env: { ...process.env, ...env, BENCH_ROLE: role, BENCH_SOCKETS: String(process.pid) },
    // The server's profiles are of its measured runs alone (profiledRun); the floor's of its life.
    execArgv: [
      ...process.execArgv,
      ...(PROFILE_DIR && role === 'floor' ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []),
    ],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message: Message) => resolve({ child, message }));
    child.once('exit', (code) => reject(new Error(`the ${role} child exited with ${code}`)));
  });
}

/** Forks this script as the server: an all-in-one controller + runner with its own Redis. */
async function startServerChild(): Promise<{ child: ChildProcess; url: string; token: string; projectId: string }> {
  const { child, message } = await startChild<{ url: string; token: string; projectId: string }>('server');
  return { child, ...message };
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
    ? serveInChild(
        {
          FERRUM_RUNNER_NETWORK: 'none',
          FERRUM_FUNCTIONS_SOCKET_DIR: SOCKET_DIR,
          FERRUM_RUNNER_INSTANCE_ID: RUNNER_ID,
          // Some 100,000 hot calls a run: their records and logs pass the default stored_bytes
          // quota, which this bench does not measure.
          FERRUM_PROJECT_MAX_STORED_BYTES: String(2 ** 36),
        },
        { withRunner: true },
      )
    : process.env.BENCH_ROLE === 'floor'
      ? serveStreamFloor(process.env.BENCH_FLOOR_SOCKETS!.split(','))
      : main();
role.then(
  () => {
    if (!process.env.BENCH_ROLE) process.exit(0);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
