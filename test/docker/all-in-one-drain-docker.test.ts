// Own server set-up: the test starts `ferrum start` as a process and signals it: the stop is what it tests.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { jsonLines, signalAndWait, startFerrumProcess, type FerrumProcess } from '../helpers/ferrum-process.js';
import { getOnOwnConnection, HttpClient } from '../helpers/http.js';
import { scaled } from '../helpers/pace.js';

// `ferrum start` (managed redis-server, controller and a runner, hence Docker) as a child process.
const DRAIN_MS = 3000;
let proc: FerrumProcess | null = null;

afterAll(async () => {
  if (!proc) return;
  await signalAndWait(proc, 'SIGKILL').catch(() => undefined);
  fs.rmSync(proc.dataDir, { recursive: true, force: true });
});

describe('the all-in-one on SIGTERM', () => {
  it(
    'answers /ready 503 while it still serves, ends long-polls empty, then exits 0',
    async () => {
      proc = await startFerrumProcess('start', {
        env: { FERRUM_HTTP_DRAIN_MS: String(DRAIN_MS), FERRUM_RUNNER_DRAIN_MS: '1000' },
      });
      const http = new HttpClient(proc.url, proc.token);
      const queue = `/3/projects/${proc.projectId}/queues/drained`;
      expect((await http.put(queue, {})).status).toBe(200);
      expect((await getOnOwnConnection(`${proc.url}/ready`)).status).toBe(200);
      const longPoll = http.post(`${queue}/reservations`, { n: 1, wait: 30 });

      const signalledAt = Date.now();
      const exited = signalAndWait(proc, 'SIGTERM', 60_000);
      await eventually(
        async () => (await getOnOwnConnection(`${proc!.url}/ready`)).status === 503,
        DRAIN_MS,
        '/ready 503',
      );
      expect(await getOnOwnConnection(`${proc.url}/health`)).toEqual({ status: 200, connection: 'close' });
      expect((await http.post(`${queue}/messages`, { messages: [{ body: 'while draining' }] })).status).toBe(201);
      // Woken by that post: the long-poll takes the message.
      expect((await longPoll).body.messages).toHaveLength(1);
      const latePoll = http.post(`${queue}/reservations`, { n: 1, wait: 30 });
      expect(await latePoll).toMatchObject({ status: 200, body: { messages: [] } });
      expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(DRAIN_MS - 100);

      await exited;
      expect(await proc.exited).toBe(0);
      expect(jsonLines(proc).find((line) => line.msg === 'shutting down')).toMatchObject({ drain_ms: DRAIN_MS });
    },
    scaled(120_000),
  );
});
