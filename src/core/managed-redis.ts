import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freeLoopbackPort } from './free-port.js';
import { sleep } from './time.js';

export const REDIS_INSTALL_HINT =
  'redis-server was not found on PATH. Install it with: sudo apt-get install -y redis-server ' +
  '(or set REDIS_URL to an existing Redis 7 server).';

export interface ManagedRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface ManagedRedisOptions {
  dataDir: string;
  /** Append-only persistence; on for the all-in-one process, off for throwaway test servers. */
  persistent: boolean;
  port?: number;
}

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
  fs.writeFileSync(configFile, `requirepass ${password}\n`, { mode: 0o600 });
  return { password, configFile };
}

/** Starts a redis-server child on a free loopback port and waits until it answers PING. */
export async function startManagedRedis(options: ManagedRedisOptions): Promise<ManagedRedis> {
  if (!redisServerAvailable()) throw new Error(REDIS_INSTALL_HINT);
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  // Only this user may read the data (and the password beside it).
  fs.chmodSync(options.dataDir, 0o700);
  const pidFile = path.join(options.dataDir, 'redis.pid');
  await stopLeftover(pidFile);

  const port = options.port ?? (await freeLoopbackPort());
  const { password, configFile } = passwordConfig(options.dataDir);
  const args = [configFile, '--bind', '127.0.0.1', '--port', String(port), '--dir', options.dataDir];
  args.push('--daemonize', 'no', '--pidfile', pidFile, '--logfile', path.join(options.dataDir, 'redis.log'));
  if (options.persistent) args.push('--appendonly', 'yes', '--appendfsync', 'everysec');
  else args.push('--appendonly', 'no', '--save', '');

  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const url = `redis://:${password}@127.0.0.1:${port}`;
  await waitUntilReady(url, child, options.dataDir);
  return { url, port, stop: () => stopChild(child) };
}

async function waitUntilReady(url: string, child: ChildProcess, dataDir: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`redis-server exited with code ${child.exitCode}; see ${path.join(dataDir, 'redis.log')}`);
    }
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
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
  throw new Error('redis-server did not become ready within 15 s');
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** A redis-server left running by a process that was killed would hold the data dir: stop it. */
async function stopLeftover(pidFile: string): Promise<void> {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isRedisProcess(pid)) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 200 && isRedisProcess(pid); i++) await sleep(50);
}

function isRedisProcess(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('redis-server');
  } catch {
    return false;
  }
}
