// Own server set-up: each test starts `ferrum start` with its own FERRUM_WORKERS and signals it: the processes' stop is what it tests.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/core/free-port.js';
import { eventually } from '../helpers/eventually.js';
import {
  ferrumChildPids,
  isAlive,
  jsonLines,
  signalAndWait,
  startFerrumProcess,
  type FerrumProcess,
} from '../helpers/ferrum-process.js';
import { getOnOwnConnection, HttpClient } from '../helpers/http.js';
import { scaled } from '../helpers/pace.js';
import { parsePrometheus } from '../helpers/prometheus.js';

// `ferrum start` with FERRUM_WORKERS=2 (managed redis-server, runner in the primary, two HTTP workers).
const DRAIN_MS = 5000;
const LEADER_LOOPS = ['cache-sweeper', 'scheduler', 'task-sweeper', 'project-janitor', 'metrics-sampler'];
let proc: FerrumProcess | null = null;

afterAll(async () => {
  if (!proc) return;
  await signalAndWait(proc, 'SIGKILL').catch(() => undefined);
  fs.rmSync(proc.dataDir, { recursive: true, force: true });
});

/** A process's resident memory (VmRSS), in bytes. */
function residentBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) * 1024;
}

async function scrape(url: string) {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  return parsePrometheus(await response.text());
}

/** The inode of the socket listening on 127.0.0.1:`port` (/proc/net/tcp: local address, state 0A, inode). */
function listeningInode(port: number): string {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const row = fs
    .readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find((fields) => fields[1] === local && fields[3] === '0A');
  return row![9]!;
}

/** Whether process `pid` holds the socket `inode` (node:cluster hands each worker the shared listening socket). */
function holdsSocket(pid: number, inode: string): boolean {
  const fds = fs.readdirSync(`/proc/${pid}/fd`);
  return fds.some((fd) => {
    try {
      return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
    } catch {
      return false; // closed meanwhile
    }
  });
}

/** Every HTTP worker of `primary` accepts connections on both ports itself. */
function everyWorkerListens(primary: number, ports: number[]): boolean {
  const workers = ferrumChildPids(primary);
  return ports.every((port) => workers.every((pid) => holdsSocket(pid, listeningInode(port))));
}

/** `count` GET /health, each on a connection of its own. */
async function healthChecks(url: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await getOnOwnConnection(`${url}/health`)).status);
  return statuses;
}

describe('the all-in-one with two HTTP workers', () => {
  it(
    'serves, aggregates /metrics, runs each loop once, replaces a killed worker, and drains on SIGTERM',
    async () => {
      const functionsPort = await freeLoopbackPort();
      proc = await startFerrumProcess('start', {
        env: {
          FERRUM_WORKERS: '2',
          FERRUM_HTTP_DRAIN_MS: String(DRAIN_MS),
          FERRUM_RUNNER_DRAIN_MS: '1000',
          FERRUM_FUNCTIONS_PORT: String(functionsPort),
        },
      });
      const primary = proc.child.pid!;
      const url = proc.url;
      const functionsUrl = `http://127.0.0.1:${functionsPort}`;
      expect(ferrumChildPids(primary)).toHaveLength(2);
      // The functions' own port is shared like the API's (node:cluster): every worker serves it.
      expect(everyWorkerListens(primary, [proc.port, functionsPort])).toBe(true);
      expect(await healthChecks(functionsUrl, 6)).toEqual(Array(6).fill(200));
      expect((await fetch(`${functionsUrl}/3/projects/${proc.projectId}/queues`)).status).toBe(404);
      const http = new HttpClient(url, proc.token);
      const queue = `/3/projects/${proc.projectId}/queues/workers`;
      expect((await http.put(queue, {})).status).toBe(200);
      expect((await http.post(`${queue}/messages`, { messages: [{ body: 'one' }] })).status).toBe(201);

      // One scrape counts what every process did, the runner's figures (the primary's) included.
      expect(await healthChecks(url, 10)).toEqual(Array(10).fill(200));
      const processes = [primary, ...ferrumChildPids(primary)];
      const rssBefore = processes.reduce((sum, pid) => sum + residentBytes(pid), 0);
      const figures = await scrape(url);
      const rssAfter = processes.reduce((sum, pid) => sum + residentBytes(pid), 0);
      // Ten on the API's port, six on the functions'.
      expect(figures.value('ferrum_http_request_duration_seconds_count', { route: '/health' })).toBe(16);
      // The memory of the three processes, not of one worker (each is a third or more of it).
      const rss = figures.value('ferrum_process_resident_memory_bytes');
      expect(rss).toBeGreaterThan(0.8 * Math.min(rssBefore, rssAfter));
      expect(rss).toBeLessThan(1.2 * Math.max(rssBefore, rssAfter));
      expect(figures.value('ferrum_build_info')).toBe(1);
      expect(figures.matching('ferrum_runner_slots', { state: 'free' })).toHaveLength(1);

      // Both workers run the loops; the leases keep each to one holder.
      const leaders = await eventually(
        async () => {
          const now = await scrape(url);
          return LEADER_LOOPS.every((loop) => now.matching('ferrum_leader', { loop }).length === 1) && now;
        },
        scaled(30_000),
        'every leader loop reported',
      );
      for (const loop of LEADER_LOOPS) expect(leaders.value('ferrum_leader', { loop }), loop).toBe(1);

      // A worker killed: the other answers meanwhile, and the primary starts another.
      const [killed, survivor] = ferrumChildPids(primary);
      process.kill(killed!, 'SIGKILL');
      expect(await healthChecks(url, 10)).toEqual(Array(10).fill(200));
      await eventually(
        () => {
          const now = ferrumChildPids(primary);
          return now.length === 2 && !now.includes(killed!) && now.includes(survivor!);
        },
        scaled(60_000),
        'a new worker',
      );
      await eventually(() => proc!.lines.some((line) => line.includes('HTTP worker restarted')), scaled(60_000));
      expect(await healthChecks(url, 4)).toEqual(Array(4).fill(200));
      expect(everyWorkerListens(primary, [proc.port, functionsPort])).toBe(true);
      expect(await healthChecks(functionsUrl, 4)).toEqual(Array(4).fill(200));

      const lastWorkers = ferrumChildPids(primary);
      // SIGTERM: every worker drains (/ready 503 while serving), then all exit and the primary exits 0.
      const exited = signalAndWait(proc, 'SIGTERM', 60_000);
      await eventually(async () => (await getOnOwnConnection(`${url}/ready`)).status === 503, DRAIN_MS, '/ready 503');
      const whileDraining = await Promise.all([0, 1, 2, 3].map(() => getOnOwnConnection(`${url}/ready`)));
      expect(whileDraining.map((answer) => answer.status)).toEqual([503, 503, 503, 503]);
      expect((await http.post(`${queue}/messages`, { messages: [{ body: 'while draining' }] })).status).toBe(201);
      await exited;
      expect(await proc.exited).toBe(0);
      expect(lastWorkers.filter(isAlive)).toEqual([]);
      expect(jsonLines(proc).find((line) => line.msg === 'shutting down')).toMatchObject({ drain_ms: DRAIN_MS });
      expect(proc.lines.some((line) => line.startsWith('Ferrum stopped after'))).toBe(true);
    },
    scaled(300_000),
  );
});
