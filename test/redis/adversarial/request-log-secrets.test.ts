import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import pretty from 'pino-pretty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type RunningController } from '../../../controller/main.js';
import { loadConfig } from '../../../src/core/config.js';
import { HttpClient } from '../../helpers/http.js';
import { scaled } from '../../helpers/pace.js';
import { startTestRedis } from '../../helpers/redis.js';

// With request logging on (FERRUM_LOG_REQUESTS=1), in JSON and in the pretty lines a terminal
// gets, no credential a request carries reaches the log: not the Authorization header, not the
// dashboard's session cookie, not a token in `?oauth=` (which clients may put in the URL).
const lines: string[] = [];
const capture = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});
let redis: Awaited<ReturnType<typeof startTestRedis>>;
let running: RunningController;
let dataDir: string;

beforeAll(async () => {
  redis = await startTestRedis();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-log-secrets-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    REDIS_URL: redis.url,
    FERRUM_DATA_DIR: dataDir,
    FERRUM_BOOTSTRAP_PASSWORD: 'admin-password',
    LOG_LEVEL: 'info',
    FERRUM_LOG_REQUESTS: '1',
  });
  const prettyLines = pretty({ destination: capture, colorize: false, sync: true, singleLine: true });
  const log = pino({ level: 'info' }, pino.multistream([{ stream: capture }, { stream: prettyLines }]));
  running = await startController(config, { log });
}, scaled(60_000));

afterAll(async () => {
  await running?.stop();
  await redis?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('request logs', () => {
  it('carry no token from the Authorization header, a cookie or ?oauth=', async () => {
    const { token, projectId } = running.bootstrap!;
    const client = new HttpClient(running.url, null);
    const secretCookie = 'ferrum_session=cookie-secret-0123456789';
    await client.get(`/1/projects/${projectId}/caches?oauth=${token}`);
    await client.get(`/1/projects/${projectId}/caches?x=1&oauth=${token}&y=2`);
    await client.get(`/1/projects/${projectId}/caches`, { headers: { authorization: `OAuth ${token}` } });
    await client.get('/1/projects', { headers: { cookie: secretCookie, 'x-ferrum-dashboard': '1' } });
    const logged = lines.join('');
    expect(logged).toContain('/caches?x=1&oauth=[redacted]&y=2');
    expect(logged).not.toContain(token);
    expect(logged).not.toContain('cookie-secret-0123456789');
  });
});

// Each request's logger is made when the request first logs (controller/http/request-logger.ts):
// what it writes is still bound to the request's id.
describe("a request's log lines", () => {
  it('carry its request id, the same on its incoming and completed lines', async () => {
    const from = lines.length;
    await new HttpClient(running.url, null).get('/health');
    const records = lines
      .slice(from)
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { reqId?: string; msg?: string });
    const incoming = records.find((record) => record.msg === 'incoming request');
    const completed = records.find((record) => record.msg === 'request completed');
    expect(incoming?.reqId).toMatch(/^req-/);
    expect(completed?.reqId).toBe(incoming?.reqId);
  });
});
