// One isolation scenario: a server of its own, a victim with a cache item and a hostile tenant,
// the victim's cache GET latency alone, then while an attacker (a process of its own) attacks.
import { Redis } from 'ioredis';
import { startAttacker } from './attacker-child.js';
import { startCacheServer } from './cache-server-child.js';
import { cpuSeconds } from './proc-cpu.js';
import { printCommandStats, resetCommandStats } from './redis-commandstats.js';
import { SMOKE } from './report.js';
import { api, newTenant, type Tenant } from './tenants.js';
import { victimGets, type Latency } from './victim-gets.js';
import type { ChildProcess } from 'node:child_process';

export interface UnderAttack<Outcome> {
  /** The victim's GET latency before the attack. */
  alone: Latency;
  /** The same during the attack. */
  during: Latency;
  /** What the attacker reported. */
  outcome: Outcome;
  /** The server's and its Redis's CPU, alone and during the attack. */
  cpu: { alone: CpuShare; during: CpuShare };
  /** The slowest SLOWLOG entries of the attack (commands and scripts, and the commands scripts ran), slowest first. */
  slowest: SlowEntry[];
}

/** A SLOWLOG entry: how long it held Redis, and the command's first words. */
export interface SlowEntry {
  ms: number;
  command: string;
}

/** Starts a SLOWLOG of every command over 1 ms; the returned call gives its `count` slowest, slowest first. */
async function slowlogWatch(redisUrl: string, count = 5): Promise<() => Promise<SlowEntry[]>> {
  const redis = new Redis(redisUrl);
  await redis.config('SET', 'slowlog-log-slower-than', '1000');
  await redis.config('SET', 'slowlog-max-len', '100000');
  await redis.call('SLOWLOG', 'RESET');
  return async () => {
    const entries = (await redis.call('SLOWLOG', 'GET', '100000')) as Array<[number, number, number, Buffer[]]>;
    redis.disconnect();
    return entries
      .map(([, , micros, args]) => ({ ms: micros / 1000, command: args.slice(0, 3).join(' ').slice(0, 80) }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, count);
  };
}

/** Percent of one core a process used over a phase. */
export interface CpuShare {
  server: number;
  redis: number;
}

/** Starts counting the CPU of the server and its Redis (from /proc); the returned call gives their share since. */
export async function cpuMeter(server: ChildProcess, redisUrl: string): Promise<() => CpuShare> {
  const redis = new Redis(redisUrl);
  const redisPid = Number(/^process_id:(\d+)/m.exec(await redis.info('server'))![1]);
  redis.disconnect();
  const seconds = () => ({ server: cpuSeconds(server.pid!), redis: cpuSeconds(redisPid), at: performance.now() });
  let start = seconds();
  return () => {
    const end = seconds();
    const wall = (end.at - start.at) / 1000;
    const share = {
      server: (100 * (end.server - start.server)) / wall,
      redis: (100 * (end.redis - start.redis)) / wall,
    };
    start = end;
    return share;
  };
}

/** `server 85% of a core, Redis 20%`. */
export function describeCpu(share: CpuShare): string {
  return `server ${share.server.toFixed(0)}% of a core, its Redis ${share.redis.toFixed(0)}%`;
}

/** Runs attacker `role` (of bench/isolation.ts) with the payload made for the hostile tenant. */
export async function victimUnderAttack<Outcome>(
  role: string,
  seconds: number,
  payload: (info: { url: string }, hostile: Tenant) => unknown,
): Promise<UnderAttack<Outcome>> {
  const { child: server, info } = await startCacheServer();
  let stop = () => {};
  try {
    const victim = await newTenant(info, 'victim');
    const hostile = await newTenant(info, 'hostile');
    await api(info, victim.token, 'PUT', `/1/projects/${victim.projectId}/caches/mine/items/hot`, { value: 'v' });
    const cpu = await cpuMeter(server, info.redisUrl);
    const alone = await victimGets(info, victim, SMOKE ? 1 : 3);
    const cpuAlone = cpu();
    const profile = process.env.BENCH_PROFILE ? await startPhaseProfile(server, info.redisUrl, 'alone') : null;
    const attack = startAttacker<Outcome>(role, payload({ url: info.url }, hostile));
    stop = attack.stop;
    await attack.started;
    const slowlog = await slowlogWatch(info.redisUrl);
    cpu();
    const during = await victimGets(info, victim, seconds);
    const cpuDuring = cpu();
    const slowest = await slowlog();
    await profile?.(`during the ${role}`);
    const outcome = await attack.outcome;
    return { alone, during, outcome, cpu: { alone: cpuAlone, during: cpuDuring }, slowest };
  } finally {
    stop();
    server.kill('SIGTERM');
  }
}

/**
 * With BENCH_PROFILE: the server's event loop delay of the phase just ended (it prints it on
 * SIGUSR2), then Redis's commandstats and SLOWLOG of the next phase when the returned call ends it.
 */
async function startPhaseProfile(server: ChildProcess, redisUrl: string, ended: string) {
  const redis = new Redis(redisUrl);
  console.error(`profile, ${ended}:`);
  server.kill('SIGUSR2');
  await resetCommandStats(redis);
  await redis.config('SET', 'slowlog-log-slower-than', '2000');
  await redis.call('SLOWLOG', 'RESET');
  return async (phase: string) => {
    console.error(`profile, ${phase}:`);
    server.kill('SIGUSR2');
    await printCommandStats(redis);
    const slow = (await redis.call('SLOWLOG', 'GET', '10')) as Array<[number, number, number, string[]]>;
    for (const [, , micros, args] of slow)
      console.error(`    slowlog ${(micros / 1000).toFixed(1)} ms: ${args.slice(0, 3).join(' ').slice(0, 120)}`);
    redis.disconnect();
  };
}
