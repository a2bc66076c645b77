// The server half of a benchmark that forks itself: a controller (with a runner, when asked) and
// its own redis-server in a child process (so the load generator does not share its event loop). It sends its address to
// the parent, answers 'cpu' with its CPU usage, starts and stops a CPU profile when asked
// (phase-profile.ts), and stops on any other message.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAllInOne } from '../../controller/all-in-one.js';
import { startController } from '../../controller/main.js';
import { loadConfig } from '../../src/core/config.js';
import { startManagedRedis } from '../../src/core/managed-redis.js';
import { mastersOf, type RedisClient } from '../../src/core/redis.js';
import { startTestRedisOf } from '../../test/helpers/redis.js';
import { answerProfileMessage, isProfileMessage } from './phase-profile.js';

export interface ChildServerOptions {
  withRunner?: boolean;
  /** A private redis-server (the default), or a private 3-master Redis Cluster. */
  topology?: 'standalone' | 'cluster';
  /** A standalone Redis with append-only persistence fsynced every second (Ferrum's default); none when absent. */
  persistent?: boolean;
  /** Answers a message of the bench's own (a floor run in this process, say); undefined for one it does not know. */
  answer?: (message: unknown) => Promise<unknown> | undefined;
}

export async function serveInChild(
  env: Record<string, string | undefined> = {},
  options: ChildServerOptions = {},
): Promise<void> {
  const redis = options.persistent ? await persistentRedis() : await startTestRedisOf(options.topology ?? 'standalone');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-bench-'));
  const config = loadConfig({
    ...env,
    PORT: '0',
    ...redis.env,
    FERRUM_DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    FERRUM_BOOTSTRAP_PASSWORD: 'bench-password',
  });
  const allInOne = options.withRunner ? await startAllInOne(config) : null;
  const running = allInOne?.controller ?? (await startController(config));
  process.send!({
    url: running.url,
    token: running.bootstrap!.token,
    projectId: running.bootstrap!.projectId,
    redisUrl: redis.url,
    redisConnection: running.ctx.redisUrl,
  });
  process.on('message', async (message) => {
    if (message === 'cpu') {
      process.send!({ cpu: process.cpuUsage() });
      return;
    }
    if (isProfileMessage(message)) {
      await answerProfileMessage(message);
      return;
    }
    const answered = options.answer?.(message);
    if (answered) {
      process.send!(await answered);
      return;
    }
    await (allInOne ?? running).stop();
    await redis.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
}

/** A private redis-server with AOF and appendfsync everysec, as the managed Redis runs by default. */
async function persistentRedis(): Promise<{ url: string; env: Record<string, string>; stop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-bench-redis-'));
  const redis = await startManagedRedis({ dataDir, persistent: true, appendfsync: 'everysec' });
  return {
    url: redis.url,
    env: { REDIS_URL: redis.url },
    async stop() {
      await redis.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** CPU ms the child started by serveInChild has used so far (it answers the 'cpu' message). */
export function childCpuMs(child: ChildProcess): Promise<number> {
  return new Promise<number>((resolve) => {
    child.once('message', (message) => {
      const { user, system } = (message as { cpu: NodeJS.CpuUsage }).cpu;
      resolve((user + system) / 1000);
    });
    child.send('cpu');
  });
}

/** CPU ms Redis has used so far: the redis-server, or every master of a Cluster (INFO cpu). */
export async function redisCpuMs(redis: RedisClient): Promise<number> {
  const infos = await Promise.all(mastersOf(redis).map((node) => node.info('cpu')));
  return infos.reduce((sum, info) => {
    const value = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    return sum + (value('used_cpu_user') + value('used_cpu_sys')) * 1000;
  }, 0);
}
