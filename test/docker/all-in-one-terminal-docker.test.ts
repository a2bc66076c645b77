// Own server set-up: `ferrum start` runs at a terminal, is stopped by Ctrl-C and started again on its data folder: the restart is what it tests.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/core/free-port.js';
import { builtFerrum } from '../helpers/built-checkout.js';
import { eventually } from '../helpers/eventually.js';
import {
  jsonLines,
  managedRedisPid,
  signalAndWait,
  startFerrumProcess,
  type FerrumProcess,
} from '../helpers/ferrum-process.js';
import { HttpClient } from '../helpers/http.js';
import { scaled } from '../helpers/pace.js';
import { printedValue, startInTerminal, type TerminalProcess } from '../helpers/terminal-process.js';

// `ferrum start` (managed redis-server, controller, a runner, hence Docker) typed at a terminal
// and stopped with Ctrl-C, as a newcomer runs it; restarted as a plain child to check its data.
const ROOT = path.resolve(import.meta.dirname, '../..');
const dataDirs: string[] = [];
const running: Array<FerrumProcess | TerminalProcess> = [];

afterAll(async () => {
  for (const proc of running) proc.child.kill('SIGKILL');
  for (const dir of dataDirs) {
    // A redis-server that stopped took its pid file with it.
    const pidFile = path.join(dir, 'redis.pid');
    const pid = fs.existsSync(pidFile) ? managedRedisPid(dir) : 0;
    if (pid > 0 && redisRuns(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function newDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-term-'));
  dataDirs.push(dir);
  return dir;
}

function redisRuns(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('redis-server');
  } catch {
    return false;
  }
}

/** A process's group id, from /proc/<pid>/stat (the 5th field, after the parenthesised name). */
function processGroupOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[2]);
}

const readIronJson = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'iron.json'), 'utf8'));

async function startAtTerminal(dataDir: string, port: number, env: Record<string, string> = {}) {
  const term = await startInTerminal({
    FERRUM_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    FERRUM_BOOTSTRAP_PASSWORD: 'admin-password',
    ...env,
  });
  running.push(term);
  return term;
}

async function postMessages(url: string, token: string, project: string, count: number): Promise<void> {
  const http = new HttpClient(url, token);
  const messages = Array.from({ length: count }, (_, i) => ({ body: `kept ${i}` }));
  expect((await http.post(`/3/projects/${project}/queues/kept/messages`, { messages })).status).toBe(201);
}

/** Starts the all-in-one again (not at a terminal) on the data folder and peeks at the queue. */
async function restartAndCount(dataDir: string, token: string, project: string, port?: number) {
  const proc = await startFerrumProcess('start', { dataDir, port });
  running.push(proc);
  const http = new HttpClient(proc.url, token);
  const peeked = await http.get(`/3/projects/${project}/queues/kept/messages?n=100`);
  return { proc, count: (peeked.body.messages as unknown[]).length };
}

/** What a stop must not show: Redis stopped under Ferrum's feet, restarted, or failing loops. */
const CRASH_SIGNS = /restarting it|ECONNREFUSED|failing|Connection is closed/;

describe('the all-in-one at a terminal', () => {
  it(
    'Ctrl-C: Redis is not interrupted, the stop is quick, says so, and loses nothing; a restart on another port rewrites iron.json',
    async () => {
      const dataDir = newDataDir();
      const term = await startAtTerminal(dataDir, await freeLoopbackPort());
      const token = printedValue(term.lines, 'token');
      const project = printedValue(term.lines, 'project_id');
      const url = /^Ferrum listening on (\S+)/.exec(term.lines.find((l) => l.startsWith('Ferrum listening'))!)![1]!;
      expect(term.lines.join('\n')).toContain('sign in as admin@ferrum.local');
      // Pretty lines at a terminal, not JSON.
      expect(term.lines.some((line) => / INFO: /.test(line))).toBe(true);
      expect(term.lines.some((line) => line.startsWith('{'))).toBe(false);
      const redisPid = managedRedisPid(dataDir);
      expect(processGroupOf(redisPid)).toBe(redisPid);
      await postMessages(url, token, project, 5);

      const pressedAt = Date.now();
      term.ctrlC();
      expect(await term.exited).toBe(0);
      // No drain at a terminal (FERRUM_HTTP_DRAIN_MS not set): well under the 5 s default.
      expect(Date.now() - pressedAt).toBeLessThan(scaled(4000));
      expect(term.lines.at(-1)).toMatch(/^Ferrum stopped after \d+\.\d s$/);
      expect(term.lines.filter((line) => CRASH_SIGNS.test(line))).toEqual([]);
      expect(redisRuns(redisPid)).toBe(false);

      const secondPort = await freeLoopbackPort();
      const { proc, count } = await restartAndCount(dataDir, token, project, secondPort);
      expect(count).toBe(5);
      expect(readIronJson(dataDir)).toMatchObject({ token, project_id: project, port: secondPort, protocol: 'http' });

      // `ferrum admin token` without PORT: iron.json keeps the running server's port.
      execFileSync(process.execPath, [builtFerrum(), 'admin', 'token'], {
        cwd: ROOT,
        env: { ...process.env, FERRUM_DATA_DIR: dataDir, PORT: '' },
      });
      const afterToken = readIronJson(dataDir);
      expect(afterToken).toMatchObject({ project_id: project, port: secondPort });
      expect(afterToken.token).not.toBe(token);
      await signalAndWait(proc, 'SIGTERM');
      expect(proc.lines.at(-1)).toMatch(/^Ferrum stopped after /);
    },
    scaled(240_000),
  );

  it(
    'Ctrl-C twice: stops at once, skipping a long drain, and still loses nothing',
    async () => {
      const dataDir = newDataDir();
      // A drain asked for explicitly is kept at a terminal too.
      const term = await startAtTerminal(dataDir, await freeLoopbackPort(), { FERRUM_HTTP_DRAIN_MS: '60000' });
      const token = printedValue(term.lines, 'token');
      const project = printedValue(term.lines, 'project_id');
      const url = /^Ferrum listening on (\S+)/.exec(term.lines.find((l) => l.startsWith('Ferrum listening'))!)![1]!;
      await postMessages(url, token, project, 7);

      const pressedAt = Date.now();
      term.ctrlC();
      await term.waitForLine(/shutting down/);
      term.ctrlC();
      expect(await term.exited).toBe(0);
      expect(Date.now() - pressedAt).toBeLessThan(scaled(10_000));
      expect(term.lines.some((line) => line.includes('stopping at once'))).toBe(true);
      expect(term.lines.at(-1)).toMatch(/^Ferrum stopped after \d+\.\d s$/);
      expect(term.lines.filter((line) => CRASH_SIGNS.test(line))).toEqual([]);
      // Every logger of the process (Redis connections' too) writes the terminal's pretty lines.
      expect(term.lines.filter((line) => line.startsWith('{'))).toEqual([]);

      const { proc, count } = await restartAndCount(dataDir, token, project);
      expect(count).toBe(7);
      await signalAndWait(proc, 'SIGTERM');
    },
    scaled(240_000),
  );

  it(
    'kill -9: the next start stops the redis-server the killed one left, and says so',
    async () => {
      const dataDir = newDataDir();
      const first = await startFerrumProcess('start', { dataDir });
      running.push(first);
      const orphan = managedRedisPid(dataDir);
      await signalAndWait(first, 'SIGKILL');
      expect(redisRuns(orphan)).toBe(true);

      const second = await startFerrumProcess('start', { dataDir });
      running.push(second);
      const said = jsonLines(second).filter((line) => String(line.msg).includes('left running by an earlier ferrum'));
      expect(said).toEqual([expect.objectContaining({ pid: orphan })]);
      await eventually(() => !redisRuns(orphan), 5000, 'the orphan gone');
      await signalAndWait(second, 'SIGTERM');
    },
    scaled(240_000),
  );
});
