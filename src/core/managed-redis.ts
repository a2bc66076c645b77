import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { writePrivateFile } from './private-file.js';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { StateLogger } from './failure-log.js';
import { freeLoopbackPort } from './free-port.js';
import { sleep } from './time.js';

export const REDIS_INSTALL_HINT =
  'redis-server was not found on PATH. Install it with: sudo apt-get install -y redis-server ' +
  '(or set REDIS_URL to an existing Redis 7 server).';

export interface ManagedRedis {
  url: string;
  port: number;
  /** How many times the child was restarted after exiting on its own. */
  readonly restarts: number;
  /** The pid of the redis-server running now (null between a crash and its restart). */
  readonly pid: number | null;
  stop(): Promise<void>;
}

export interface ManagedRedisOptions {
  dataDir: string;
  /** Append-only persistence; on for the all-in-one process, off for throwaway test servers. */
  persistent: boolean;
  appendfsync?: 'always' | 'everysec' | 'no';
  /**
   * Redis's `maxmemory` in bytes (0: none). With `noeviction`, a full Redis refuses writes
   * (answered 503) and never drops a tenant's data to make room.
   */
  maxmemoryBytes?: number;
  port?: number;
  /**
   * Supervision: when the child exits on its own it is started again (same port, same data
   * folder and AOF) after a growing delay. After this many failed restarts in a row, `onGiveUp`
   * is called. 0 (the default) leaves a dead child dead.
   */
  restartAttempts?: number;
  onGiveUp?: (error: Error) => void;
  log?: StateLogger;
}

const READY_TIMEOUT_MS = 15_000;
const PORT_FILE = 'redis.port';
const STOP_TIMEOUT_MS = 5_000;
/** A child that ran this long before dying counts as having restarted successfully. */
const STABLE_MS = 10_000;
const FIRST_RESTART_DELAY_MS = 200;
const MAX_RESTART_DELAY_MS = 5_000;

export function redisServerAvailable(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * The managed server's password: generated once, kept in the data folder (0600), written into a
 * config file rather than on the command line where `ps` would show it.
 */
function passwordConfig(dataDir: string): { password: string; configFile: string } {
  const passwordFile = path.join(dataDir, 'redis.password');
  let password: string;
  try {
    password = fs.readFileSync(passwordFile, 'utf8').trim();
  } catch {
    password = '';
  }
  if (!password) {
    password = randomBytes(24).toString('hex');
    fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  }
  const configFile = path.join(dataDir, 'redis.conf');
  writePrivateFile(configFile, `requirepass ${password}\n`);
  return { password, configFile };
}

/** Starts a redis-server child on a free loopback port and waits until it answers PING. */
export async function startManagedRedis(options: ManagedRedisOptions): Promise<ManagedRedis> {
  if (!redisServerAvailable()) throw new Error(REDIS_INSTALL_HINT);
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  // Only this user may read the data (and the password beside it).
  fs.chmodSync(options.dataDir, 0o700);
  const pidFile = path.join(options.dataDir, 'redis.pid');
  const leftover = await stopLeftover(pidFile);
  if (leftover !== null)
    options.log?.warn(
      { pid: leftover, data_dir: options.dataDir },
      `stopped redis-server pid ${leftover}, left running by an earlier ferrum that was killed`,
    );
  const port = options.port ?? (await freeLoopbackPort());
  // For other commands on the same data folder (`ferrum admin token`) while this one runs.
  fs.writeFileSync(path.join(options.dataDir, PORT_FILE), `${port}\n`, { mode: 0o600 });
  const supervisor = new RedisSupervisor(options, port, pidFile);
  await supervisor.start();
  return supervisor;
}

class RedisSupervisor implements ManagedRedis {
  readonly url: string;
  restarts = 0;
  private child: ChildProcess | null = null;
  private stopping = false;
  private failuresInARow = 0;
  private readonly args: string[];

  constructor(
    private readonly options: ManagedRedisOptions,
    readonly port: number,
    pidFile: string,
  ) {
    const { password, configFile } = passwordConfig(options.dataDir);
    this.url = `redis://:${password}@127.0.0.1:${port}`;
    const { dataDir } = options;
    // The password is in the config file (0600), not on the command line.
    this.args = [configFile, '--bind', '127.0.0.1', '--port', String(port), '--dir', dataDir, '--daemonize', 'no'];
    this.args.push('--pidfile', pidFile, '--logfile', path.join(dataDir, 'redis.log'));
    if (options.persistent) this.args.push('--appendonly', 'yes', '--appendfsync', options.appendfsync ?? 'everysec');
    else this.args.push('--appendonly', 'no', '--save', '');
    this.args.push('--maxmemory', String(options.maxmemoryBytes ?? 0), '--maxmemory-policy', 'noeviction');
  }

  get pid(): number | null {
    return this.child?.exitCode === null && this.child.signalCode === null ? (this.child.pid ?? null) : null;
  }

  async start(): Promise<void> {
    // Its own process group (and session): a terminal's Ctrl-C or a SIGTERM to Ferrum's group
    // (systemd) reaches Ferrum only, which stops this child last, after its drain.
    const child = spawn('redis-server', this.args, { stdio: 'ignore', detached: true });
    this.child = child;
    process.off('exit', this.killOnExit).on('exit', this.killOnExit);
    await waitUntilReady(this.url, child, this.options.dataDir);
    const startedAt = Date.now();
    child.once('exit', (code, signal) => {
      if (!this.stopping) void this.recover({ code, signal }, Date.now() - startedAt >= STABLE_MS);
    });
  }

  /**
   * Starts the child again after it died, with backoff. A restart counts as failed until the new
   * child has run STABLE_MS; after restartAttempts failed ones in a row, gives up.
   */
  private async recover(
    exit: { code: number | null; signal: NodeJS.Signals | null },
    wasStable: boolean,
  ): Promise<void> {
    const { log, restartAttempts = 0, dataDir } = this.options;
    const downSince = Date.now();
    log?.warn({ ...exit, data_dir: dataDir }, 'managed redis-server exited; restarting it');
    if (wasStable) this.failuresInARow = 0;
    while (!this.stopping) {
      if (this.failuresInARow >= restartAttempts) {
        const why = `managed redis-server exited and ${this.failuresInARow} restarts in a row failed`;
        return this.giveUp(new Error(`${why}; see ${path.join(dataDir, 'redis.log')}`));
      }
      await sleep(Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** this.failuresInARow));
      if (this.stopping) return;
      this.failuresInARow++;
      try {
        await this.start();
        this.restarts++;
        log?.info({ restarts: this.restarts, down_ms: Date.now() - downSince }, 'managed redis-server is back');
        return;
      } catch (error) {
        log?.warn(
          { err: (error as Error).message, failures: this.failuresInARow },
          'managed redis-server did not come back',
        );
      }
    }
  }

  private giveUp(error: Error): void {
    if (this.stopping) return;
    this.options.log?.warn({ err: error.message }, 'giving up on the managed redis-server');
    this.options.onGiveUp?.(error);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.child) await stopChild(this.child);
    process.off('exit', this.killOnExit);
  }

  /**
   * A process that exits without stop() (a shutdown past its bound) takes its redis-server with
   * it: SIGTERM, on which Redis writes what it holds to disk and exits on its own.
   */
  private readonly killOnExit = () => {
    if (this.pid !== null) {
      this.child?.kill('SIGTERM');
      this.child?.kill('SIGCONT');
    }
  };
}

async function waitUntilReady(url: string, child: ChildProcess, dataDir: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `redis-server exited with ${child.signalCode ?? `code ${child.exitCode}`}; see ${path.join(dataDir, 'redis.log')}`,
      );
    }
    const probe = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: 1000,
      commandTimeout: 1000,
    });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      return;
    } catch {
      await sleep(50);
    } finally {
      probe.disconnect();
    }
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not become ready within ${READY_TIMEOUT_MS / 1000} s`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
    // A frozen (SIGSTOPped) server handles the SIGTERM once continued.
    child.kill('SIGCONT');
  });
}

/**
 * A redis-server left running by a process that was killed (kill -9 gives it no chance to stop
 * its child) would hold the data dir: stop it (SIGTERM: it saves first). Its pid, or null.
 */
async function stopLeftover(pidFile: string): Promise<number | null> {
  const pid = runningPidIn(pidFile);
  if (pid === null) return null;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 200 && isRedisProcess(pid); i++) await sleep(50);
  return pid;
}

/** The pid in a redis.pid file when that process is a redis-server still running; else null. */
function runningPidIn(pidFile: string): number | null {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  } catch {
    return null;
  }
  return Number.isInteger(pid) && pid > 0 && isRedisProcess(pid) ? pid : null;
}

function isRedisProcess(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('redis-server');
  } catch {
    return false;
  }
}

/**
 * The URL of the managed redis-server a running `ferrum start` or `ferrum controller` keeps for
 * `dataDir` (its pid and port files, the password beside them); null when none runs.
 */
export function runningManagedRedisUrl(dataDir: string): string | null {
  const pid = runningPidIn(path.join(dataDir, 'redis.pid'));
  if (pid === null) return null;
  try {
    const port = Number(fs.readFileSync(path.join(dataDir, PORT_FILE), 'utf8').trim());
    const password = fs.readFileSync(path.join(dataDir, 'redis.password'), 'utf8').trim();
    return `redis://:${password}@127.0.0.1:${port}`;
  } catch (error) {
    throw new Error(`a redis-server (pid ${pid}) runs for ${dataDir} but its address is unknown (${String(error)})`);
  }
}
