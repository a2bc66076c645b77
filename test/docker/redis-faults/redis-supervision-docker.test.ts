import fs from 'node:fs';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../helpers/http.js';
import {
  jsonLines,
  managedRedisPid,
  signalAndWait,
  startFerrumProcess,
  type FerrumProcess,
} from '../../helpers/ferrum-process.js';
import { missingMessages, startPostLoad, waitFor } from '../../helpers/post-load.js';
import { scaled } from '../../helpers/pace.js';

// `ferrum start` (managed redis-server, controller and a runner, hence Docker) as a child process.
let procs: FerrumProcess[] = [];
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

afterEach(async () => {
  for (const proc of procs) {
    const pid = fs.existsSync(`${proc.dataDir}/redis.pid`) ? managedRedisPid(proc.dataDir) : 0;
    if (proc.child.exitCode === null && proc.child.signalCode === null) await signalAndWait(proc, 'SIGKILL');
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(proc.dataDir, { recursive: true, force: true });
  }
  procs = [];
});

async function startAllInOne(env: Record<string, string> = {}): Promise<FerrumProcess> {
  const proc = await startFerrumProcess('start', {
    env: { FERRUM_RUNNER_DRAIN_MS: '2000', FERRUM_SHUTDOWN_TIMEOUT_MS: '15000', ...env },
  });
  procs.push(proc);
  return proc;
}

describe('the all-in-one supervises its redis-server', () => {
  it(
    'restarts a redis-server killed under posting load; posting resumes and every acknowledged message is there',
    async () => {
      const proc = await startAllInOne();
      const http = new HttpClient(proc.url, proc.token);
      const clients = Array.from({ length: 8 }, () => http);
      const load = startPostLoad(clients, proc.projectId!, 'supervised');
      expect(await waitFor(() => load.acked.length >= 300, 60_000)).toBe(true);

      const first = managedRedisPid(proc.dataDir);
      process.kill(first, 'SIGKILL');
      const killedAt = Date.now();
      const ackedAtKill = load.acked.length;
      expect(await waitFor(() => load.lastAckAt > killedAt + 50, 30_000)).toBe(true);
      const recoveredMs = load.lastAckAt - killedAt;
      expect(await waitFor(() => load.acked.length >= ackedAtKill + 300, 60_000)).toBe(true);
      await load.stop();

      expect(managedRedisPid(proc.dataDir)).not.toBe(first);
      const missing = await missingMessages(http, proc.projectId!, 'supervised', load.acked);
      const ready = await http.get('/ready');
      console.log(
        `[supervision] acknowledged=${load.acked.length} lost=${missing.length} ` +
          `recovered_in_ms=${recoveredMs} longest_client_outage_ms=${load.longestOutageMs()} ` +
          `failed_posts=${JSON.stringify(Object.fromEntries(load.failures))}`,
      );
      expect(missing).toEqual([]);
      expect(ready.status).toBe(200);
      expect(recoveredMs).toBeLessThan(scaled(10_000));
      // Failed posts were told to come back (503), none hung up on.
      expect([...load.failures.keys()].every((status) => status === 503)).toBe(true);
      const logs = jsonLines(proc);
      expect(logs.some((line) => line.msg === 'managed redis-server is back')).toBe(true);
      // No plain-text ioredis traces: every log line is JSON or one of the banner lines.
      expect(proc.lines.filter((line) => line.includes('[ioredis]'))).toEqual([]);
    },
    scaled(240_000),
  );

  it(
    'stops within the shutdown bound on SIGTERM while its redis-server is frozen',
    async () => {
      const proc = await startAllInOne();
      const redisPid = managedRedisPid(proc.dataDir);
      process.kill(redisPid, 'SIGSTOP');
      try {
        // Requests needing Redis fail fast meanwhile, with Retry-After.
        const http = new HttpClient(proc.url, proc.token);
        const started = Date.now();
        const response = await http.get(`/3/projects/${proc.projectId}/queues`);
        const answeredMs = Date.now() - started;
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('1');
        expect(answeredMs).toBeLessThan(scaled(5000));
        expect((await http.get('/ready')).status).toBe(503);

        const shutdownMs = await signalAndWait(proc, 'SIGTERM', 60_000);
        console.log(
          `[supervision] frozen_redis request_503_in_ms=${answeredMs} shutdown_ms=${shutdownMs} (bound 15000)`,
        );
        expect(shutdownMs).toBeLessThan(15_000 + 3000);
        // Each step given up is logged once, not retried.
        expect(proc.lines.filter((line) => line.includes('gave up waiting')).length).toBeLessThanOrEqual(6);
        // The managed redis-server did not outlive its owner.
        expect(await waitFor(() => !alive(redisPid), 10_000)).toBe(true);
      } finally {
        if (alive(redisPid)) process.kill(redisPid, 'SIGCONT');
      }
    },
    scaled(180_000),
  );

  it(
    'gives up with a clear message and a non-zero exit when redis-server cannot be restarted',
    async () => {
      const proc = await startAllInOne({ FERRUM_REDIS_RESTART_ATTEMPTS: '2' });
      const redisPid = managedRedisPid(proc.dataDir);
      // redis-server shows its address as its process title.
      const port = Number(/:(\d+)/.exec(fs.readFileSync(`/proc/${redisPid}/cmdline`, 'utf8'))?.[1]);
      expect(port).toBeGreaterThan(0);
      process.kill(redisPid, 'SIGKILL');
      // Something else takes the port: every restart fails.
      const squatter = net.createServer();
      await waitFor(
        () =>
          new Promise<boolean>((resolve) => {
            squatter.once('error', () => resolve(false));
            squatter.listen(port, '127.0.0.1', () => resolve(true));
          }),
        5000,
        20,
      );
      try {
        const code = await Promise.race([
          proc.exited,
          new Promise((resolve) => setTimeout(() => resolve('late'), scaled(60_000))),
        ]);
        expect(code).toBe(1);
        expect(proc.lines.some((line) => line.includes('restarts in a row failed'))).toBe(true);
      } finally {
        squatter.close();
      }
    },
    scaled(180_000),
  );
});
