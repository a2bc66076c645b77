// Own server set-up: `ferrum start` is signalled while its workers are still starting: the start and stop are what it tests.
import fs from 'node:fs';
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import {
  ferrumChildPids,
  isAlive,
  jsonLines,
  startFerrumProcess,
  type FerrumProcess,
} from '../helpers/ferrum-process.js';
import { HttpClient } from '../helpers/http.js';
import { scaled } from '../helpers/pace.js';

// `ferrum start` with three HTTP workers, SIGTERM once the first serves and the others are starting.
const WORKERS = 3;
const TOKEN = 'stop-while-starting-token-0123456789';
const PROJECT = 'stop-while-starting';
const UPLOADS = 6;
let proc: FerrumProcess | null = null;

afterAll(() => {
  if (!proc) return;
  proc.child.kill('SIGKILL');
  fs.rmSync(proc.dataDir, { recursive: true, force: true });
});

interface Upload {
  /** The server took the request (it answered `100 Continue` to its headers). */
  acknowledged: Promise<void>;
  /** Sends the body; resolves with the answer's status, rejects if the request is dropped. */
  finish(): Promise<number>;
}

/** A POST of messages on a connection of its own that sends its body only when told to. */
function upload(url: string, path: string, body: string): Upload {
  const request = http.request(`${url}${path}`, {
    method: 'POST',
    agent: false,
    headers: {
      Authorization: `OAuth ${TOKEN}`,
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
      Expect: '100-continue',
    },
  });
  const answered = new Promise<number>((resolve, reject) => {
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    });
    request.on('error', reject);
  });
  answered.catch(() => undefined);
  const acknowledged = new Promise<void>((resolve, reject) => {
    request.on('continue', resolve);
    request.on('error', reject);
  });
  request.flushHeaders();
  return {
    acknowledged,
    finish: () => {
      request.end(body);
      return answered;
    },
  };
}

describe('the all-in-one with HTTP workers, signalled while they start', () => {
  it(
    'answers every request the first worker took, stops the workers still starting and exits 0',
    async () => {
      proc = await startFerrumProcess('start', {
        env: {
          FERRUM_WORKERS: String(WORKERS),
          FERRUM_BOOTSTRAP_TOKEN: TOKEN,
          FERRUM_BOOTSTRAP_PROJECT_ID: PROJECT,
          FERRUM_HTTP_DRAIN_MS: '2000',
          FERRUM_RUNNER_DRAIN_MS: '1000',
        },
        // The first worker listens: the start is not over.
        readyLine: /Server listening at/,
      });
      const primary = proc.child.pid!;
      const queue = `/3/projects/${PROJECT}/queues/starting`;
      expect((await new HttpClient(proc.url, TOKEN).put(queue, {})).status).toBe(200);
      const uploads = Array.from({ length: UPLOADS }, (_, i) =>
        upload(proc!.url, `${queue}/messages`, JSON.stringify({ messages: [{ body: `in flight ${i}` }] })),
      );
      await Promise.all(uploads.map((one) => one.acknowledged));
      // The primary forked the other workers (the first said it was ready); they are starting.
      await eventually(() => ferrumChildPids(primary).length === WORKERS, scaled(60_000), 'every worker forked');
      const workers = ferrumChildPids(primary);

      proc.child.kill('SIGTERM');
      await eventually(() => jsonLines(proc!).some((line) => line.msg === 'shutting down'), scaled(10_000));
      // The bodies arrive while the installation stops: each request is answered.
      expect(await Promise.all(uploads.map((one) => one.finish()))).toEqual(Array(UPLOADS).fill(201));

      expect(await proc.exited, proc.lines.join('\n')).toBe(0);
      // The signal came while some workers were still starting.
      const starting = jsonLines(proc).find((line) => line.msg === 'stopping HTTP workers still starting');
      expect(starting?.starting).toBeGreaterThan(0);
      expect(proc.lines.some((line) => line.startsWith('Ferrum listening on'))).toBe(false);
      expect(proc.lines.some((line) => line.startsWith('Ferrum stopped after'))).toBe(true);
      expect(proc.lines.filter((line) => /exited while starting|shutdown failed/.test(line))).toEqual([]);
      expect(workers.filter(isAlive)).toEqual([]);
    },
    scaled(180_000),
  );
});
