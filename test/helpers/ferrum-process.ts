import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from '../../src/core/free-port.js';
import { builtFerrum } from './built-checkout.js';
import { scaled } from './pace.js';
import { PortTaken, retryOnPortTaken } from './port-taken.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A `ferrum <command>` child process (this checkout, built once for the run, or a built release), its output kept for assertions. */
export interface FerrumProcess {
  child: ChildProcess;
  port: number;
  url: string;
  dataDir: string;
  /** Every line the process wrote to stdout and stderr so far. */
  lines: string[];
  /** Bootstrap token and project, when this start created them. */
  token: string | null;
  projectId: string | null;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<number | NodeJS.Signals>;
}

export interface FerrumProcessOptions {
  env?: Record<string, string>;
  dataDir?: string;
  /** Wait for "Ferrum listening" (servers) or for this line (runners). */
  readyLine?: RegExp;
  /** A fixed port (to start a killed server again where its clients look); a free one by default. */
  port?: number;
  /**
   * A previous release built by scripts/build-release.sh (its folder): runs its built
   * `dist/bin/ferrum.js` rather than this checkout's sources.
   */
  release?: string;
}

/**
 * Starts `ferrum <command>` with its own data folder and port; resolves once it says it is ready.
 * A free port taken by another process before the child bound it: started again on another.
 */
export function startFerrumProcess(command: string, options: FerrumProcessOptions = {}): Promise<FerrumProcess> {
  return options.port === undefined ? retryOnPortTaken(() => startOnce(command, options)) : startOnce(command, options);
}

async function startOnce(command: string, options: FerrumProcessOptions): Promise<FerrumProcess> {
  const port = options.port ?? (await freeLoopbackPort());
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-proc-'));
  const entry = options.release ? 'dist/bin/ferrum.js' : builtFerrum();
  const child = spawn(process.execPath, [entry, command], {
    cwd: options.release ?? ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      FERRUM_DATA_DIR: dataDir,
      FERRUM_BOOTSTRAP_PASSWORD: 'admin-password',
      LOG_LEVEL: 'info',
      // One process unless a test asks for HTTP workers (test/docker/all-in-one-workers-docker.test.ts).
      FERRUM_WORKERS: '1',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number | NodeJS.Signals>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const proc: FerrumProcess = {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    dataDir,
    lines,
    token: null,
    projectId: null,
    exited,
  };
  const readyLine = options.readyLine ?? /^Ferrum listening on /;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`ferrum ${command} did not start:\n${lines.join('\n')}`)),
      scaled(90_000),
    );
    const onLine = (line: string) => {
      lines.push(line);
      const token = /^\s+token:\s+(\S+)/.exec(line);
      if (token) proc.token = token[1]!;
      const project = /^\s+project_id:\s+(\S+)/.exec(line);
      if (project) proc.projectId = project[1]!;
      if (readyLine.test(line)) {
        clearTimeout(timer);
        resolve();
      }
    };
    for (const stream of [child.stdout!, child.stderr!]) {
      let rest = '';
      stream.on('data', (chunk: Buffer) => {
        const parts = (rest + chunk.toString()).split('\n');
        rest = parts.pop()!;
        for (const line of parts) onLine(line);
      });
    }
    void exited.then((code) => {
      clearTimeout(timer);
      const why = `ferrum ${command} exited (${code}) while starting:\n${lines.join('\n')}`;
      reject(lines.some((line) => line.includes('EADDRINUSE')) ? new PortTaken(why) : new Error(why));
    });
  });
  return proc;
}

/** JSON log lines of a process (pino), parsed; other lines skipped. */
export function jsonLines(proc: FerrumProcess): Array<Record<string, unknown>> {
  return proc.lines.flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** Sends `signal` and resolves with how long the process took to exit, in ms; `timeoutMs` is a bound at rest (scaled). */
export async function signalAndWait(proc: FerrumProcess, signal: NodeJS.Signals, timeoutMs = 120_000): Promise<number> {
  const started = Date.now();
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return 0;
  proc.child.kill(signal);
  const boundMs = scaled(timeoutMs);
  const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), boundMs).unref());
  if ((await Promise.race([proc.exited, late])) === 'late') {
    proc.child.kill('SIGKILL');
    throw new Error(`process did not exit within ${boundMs} ms of ${signal}`);
  }
  return Date.now() - started;
}

let clockTicks: number | null = null;
/** Clock ticks per second, the unit of /proc/<pid>/stat's times (`getconf CLK_TCK`, 100 nearly everywhere). */
function clockTicksPerSecond(): number {
  if (clockTicks === null) {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    clockTicks = Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  }
  return clockTicks;
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat: utime and stime
 * are fields 14 and 15, counted after the parenthesised command name (which may hold spaces).
 */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond();
}

/** Whether process `pid` still exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The processes whose parent is `pid` and whose command line names ferrum (a primary's HTTP workers). */
export function ferrumChildPids(pid: number): number[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]);
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      return parent === pid && command.includes('ferrum') ? [Number(entry)] : [];
    } catch {
      return []; // gone meanwhile
    }
  });
}

/** The pid in a redis.pid file (the managed redis-server of a data folder). */
export function managedRedisPid(dataDir: string): number {
  return Number(fs.readFileSync(path.join(dataDir, 'redis.pid'), 'utf8').trim());
}
