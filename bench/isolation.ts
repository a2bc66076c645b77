// Tenant isolation under a hostile neighbour, three scenarios, each on a server of its own:
// 1. wipes: one tenant posts maximal message batches and clears (and deletes) huge queues and
//    caches; Redis's SLOWLOG shows the longest single command or script of the run;
// 2. storage flood (lib/isolation-storage-flood.ts): it writes the largest cache items and
//    message batches as fast as it can;
// 3. loop and fan-out attempts (lib/isolation-loop-flood.ts): it builds push, alert and error
//    report loops, and the widest ironmq:/// fan-out allowed, and posts into them as fast as it can;
// 4. function flood (lib/isolation-function-flood.ts): it queues slow async function calls as
//    fast as it can on the runner the victim's hot function also runs on.
// Throughout, the victim's cache GET latency is measured (and in 3 its function calls, alone and
// under the flood). Targets, all ratios to a figure of the same run: the victim's GET p99 under attack at most 5x its
// p99 alone (in every scenario; the issue's absolute 50 ms is printed beside it), no SLOWLOG entry
// over 20x a reference script's time (the issue's 20 ms beside it), its function call p99 under the
// flood below 2x alone.
// Run with `npm run bench:isolation`; BENCH_SMOKE=1 runs a small version in seconds,
// BENCH_SECONDS sets each attack's length (default 15).
// In 1, three processes: the server (controller + its redis-server), the attacker, and this one
// (the victim's client), so neither client's work shows in the other's figures.
import { startCacheServer, type CacheServerInfo } from './lib/cache-server-child.js';
import { figure, SMOKE } from './lib/report.js';
import { serveAttack } from './lib/attacker-child.js';
import { functionFlood, runFunctionFlood } from './lib/isolation-function-flood.js';
import { loopFlood, runLoopFloods } from './lib/isolation-loop-flood.js';
import { runStorageFlood, storageFlood } from './lib/isolation-storage-flood.js';
import { api, newTenant, type Tenant } from './lib/tenants.js';
import { loadAverage, victimFigures } from './lib/isolation-figures.js';
import { victimGets } from './lib/victim-gets.js';
import { cpuMeter } from './lib/victim-under-attack.js';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { Redis } from 'ioredis';
import { CacheStore } from '../src/cache/cache-store.js';
import { KeySpace } from '../src/core/redis.js';

/** The bench's direct writes are not a tenant's: no quota applies. */
const UNLIMITED = { storedBytes: Number.MAX_SAFE_INTEGER, caches: Number.MAX_SAFE_INTEGER };

const SECONDS = Number(process.env.BENCH_SECONDS ?? (SMOKE ? 1 : 15));
/** Messages already on the queue the attacker clears, and items in each cache it clears or deletes. */
const SEEDED_MESSAGES = SMOKE ? 5_000 : 300_000;
const SEEDED_ITEMS = SMOKE ? 5_000 : 300_000;
/** The most a post may carry (FERRUM_MQ_MAX_POST_MESSAGES's default) and a 1 KB body each. */
const BATCH = 1000;
const BODY = 'x'.repeat(1000);
const SLOWLOG_FLOOR_US = 1000;
/**
 * The longest a single Redis command or script may hold Redis, as a multiple of the reference
 * script's time (scriptReference): 20x is the issue's 20 ms where 1,000 HSETs take 1 ms.
 */
const SLOWLOG_TARGET = 20;
const REFERENCE_SCRIPT = `
local t0 = redis.call('TIME')
for i = 1, 1000 do redis.call('HSET', KEYS[1], i, 'x') end
redis.call('DEL', KEYS[1])
local t1 = redis.call('TIME')
return (t1[1] - t0[1]) * 1000000 + (t1[2] - t0[2])`;

type ServerInfo = CacheServerInfo;

function batch(): { messages: Array<{ body: string }> } {
  return { messages: Array.from({ length: BATCH }, () => ({ body: BODY })) };
}

// The attacker (a child process): seeds, says "ready", waits for "go", attacks for SECONDS.
async function attacker(info: ServerInfo, tenant: Tenant): Promise<void> {
  const project = `/3/projects/${tenant.projectId}`;
  const cacheBase = `/1/projects/${tenant.projectId}/caches`;
  const redis = new Redis(info.redisUrl);
  const caches = new CacheStore(redis, new KeySpace(info.keyPrefix));
  const body = JSON.stringify(batch());
  const post = (queue: string) =>
    fetch(`${info.url}${project}/queues/${queue}/messages`, {
      method: 'POST',
      headers: { authorization: `OAuth ${tenant.token}`, 'content-type': 'application/json' },
      body,
    }).then((response) => response.arrayBuffer());
  const seed = async (round: number) => {
    for (let posted = 0; posted < SEEDED_MESSAGES; posted += BATCH) await post(`seeded-${round}`);
    for (const cache of [`big-${round}`, `huge-${round}`]) {
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < SEEDED_ITEMS; i++) {
        writes.push(
          caches.put(
            tenant.projectId,
            cache,
            `item-${i}`,
            {
              json: JSON.stringify(BODY.slice(0, 100)),
              expiresIn: i % 2 === 0 ? 0 : 3600,
              condition: { kind: 'always' },
            },
            UNLIMITED,
          ),
        );
        if (writes.length === 1000) await Promise.all(writes.splice(0));
      }
      await Promise.all(writes);
    }
  };
  await seed(0);
  process.send!('ready');
  await new Promise((resolve) => process.once('message', resolve));
  const endAt = Date.now() + SECONDS * 1000;
  let posts = 0;
  let wipes = 0;
  const poster = async () => {
    while (Date.now() < endAt) {
      await post('flood');
      posts += 1;
    }
  };
  const wiper = async () => {
    for (let round = 0; Date.now() < endAt; round++) {
      await api(info, tenant.token, 'DELETE', `${project}/queues/seeded-${round}/messages`, {});
      await api(info, tenant.token, 'DELETE', `${project}/queues/seeded-${round}`);
      await api(info, tenant.token, 'POST', `${cacheBase}/big-${round}/clear`);
      await api(info, tenant.token, 'DELETE', `${cacheBase}/huge-${round}`);
      // The posters create the queue with their first post, which may not have landed yet.
      await api(info, tenant.token, 'DELETE', `${project}/queues/flood/messages`, {}).catch(unlessNotFound);
      wipes += 1;
      // Huge structures again for the next round (the seeding itself is part of the attack).
      if (Date.now() < endAt) await seed(round + 1);
    }
  };
  await Promise.all([poster(), poster(), wiper()]);
  process.send!({ posts, wipes });
  redis.disconnect();
}

const startServer = startCacheServer;

function unlessNotFound(error: Error): void {
  if (!/: 404 /.test(error.message)) throw error;
}

interface SlowEntry {
  micros: number;
  command: string;
}

async function slowlog(redis: Redis): Promise<SlowEntry[]> {
  const entries = (await redis.call('SLOWLOG', 'GET', '1000')) as Array<[number, number, number, string[]]>;
  return entries
    .map(([, , micros, args]) => ({
      micros,
      command: args
        .slice(0, 4)
        .map((arg) => String(arg).slice(0, 40))
        .join(' '),
    }))
    .sort((a, b) => b.micros - a.micros);
}

/** BENCH_SCENARIOS (e.g. `loop`) runs only those scenarios: wipes, storage, loop, function. */
const SCENARIOS = process.env.BENCH_SCENARIOS?.split(',') ?? ['wipes', 'storage', 'loop', 'function'];

/**
 * How long this Redis takes, now, for a fixed piece of script work (1,000 HSETs and a DEL inside
 * one script, timed by Redis's own clock): the median of 5. SLOWLOG's figures are wall time too,
 * so a loaded machine lengthens both alike.
 */
async function scriptReference(redis: Redis): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push(Number(await redis.eval(REFERENCE_SCRIPT, 1, 'bench:script-reference')));
  return times.sort((a, b) => a - b)[2]! / 1000;
}

/** The slowest SLOWLOG entry, absolute (the issue's 20 ms, not the verdict) and as a multiple of the reference script. */
function slowlogFigures(slow: SlowEntry[], referenceMs: number): void {
  const top = slow[0];
  const slowest = top ? top.micros / 1000 : 0;
  console.log(
    `slowest Redis SLOWLOG entry: ${top ? `${slowest.toFixed(2)} ms (${top.command})` : `none over ${SLOWLOG_FLOOR_US / 1000} ms`}; ${slow.length} entries over ${SLOWLOG_FLOOR_US / 1000} ms; ` +
      `the reference script (1,000 HSETs) ${referenceMs.toFixed(2)} ms now: ${(slowest / referenceMs).toFixed(1)}x (target <= ${SLOWLOG_TARGET}x, the verdict; on a loaded machine, descheduling of redis-server lengthens both)`,
  );
  for (const entry of slow.slice(1, 5))
    console.log(`  next: ${(entry.micros / 1000).toFixed(2)} ms (${entry.command})`);
  figure('isolation reference script, 1,000 HSETs in one script', referenceMs, 'ms', {
    better: 'lower',
    machine: true,
  });
  figure('isolation slowest Redis SLOWLOG entry', slowest, 'ms', { better: 'lower', goal: 20 });
  figure('isolation slowest Redis SLOWLOG entry / reference script', slowest / referenceMs, 'x', {
    better: 'lower',
    target: SLOWLOG_TARGET,
    reference: `1,000 HSETs in one script on the same Redis, ${referenceMs.toFixed(2)} ms, same run`,
  });
}

async function main(): Promise<void> {
  if (SCENARIOS.includes('wipes')) await runWipes();
  if (SCENARIOS.includes('storage')) await runStorageFlood(SECONDS);
  if (SCENARIOS.includes('loop')) await runLoopFloods(SECONDS);
  if (!SCENARIOS.includes('function')) return;
  execFileSync('bash', ['scripts/build-test-images.sh'], { stdio: 'inherit' });
  await runFunctionFlood(SECONDS);
}

/** The first scenario: huge posts, clears and deletes of queues and caches, SLOWLOG watched. */
async function runWipes(): Promise<void> {
  const { child: server, info } = await startServer();
  const redis = new Redis(info.redisUrl);
  let attack: ChildProcess | null = null;
  try {
    const victim = await newTenant(info, 'victim');
    const hostile = await newTenant(info, 'hostile');
    await api(info, victim.token, 'PUT', `/1/projects/${victim.projectId}/caches/mine/items/hot`, { value: 'v' });
    const cpu = await cpuMeter(server, info.redisUrl);
    const baseline = await victimGets(info, victim, SMOKE ? 1 : 3);

    attack = spawn(process.execPath, ['--import', 'tsx', 'bench/isolation.ts', 'attacker'], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, BENCH_ATTACK: JSON.stringify({ info, tenant: hostile }) },
    });
    const child = attack;
    await new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`attacker exited (${code}) before it was ready`)));
    });
    await redis.config('SET', 'slowlog-log-slower-than', String(SLOWLOG_FLOOR_US));
    await redis.config('SET', 'slowlog-max-len', '100000');
    await redis.call('SLOWLOG', 'RESET');
    const outcome = new Promise<{ posts: number; wipes: number }>((resolve, reject) => {
      child.on('message', (message) => resolve(message as { posts: number; wipes: number }));
      child.once('exit', (code) => reject(new Error(`attacker exited (${code}) before it reported`)));
    });
    child.send('go');
    cpu();
    const during = await victimGets(info, victim, SECONDS);
    const cpuDuring = cpu();
    const { posts, wipes } = await outcome;
    const slow = await slowlog(redis);
    const healthy = await api(info, victim.token, 'GET', `/1/projects/${victim.projectId}/caches/mine/items/hot`);

    console.log(
      `isolation benchmark${SMOKE ? ' (smoke size)' : ''}: ${SECONDS}s of attack, ${os.cpus().length} cores, load ${loadAverage()}`,
    );
    console.log(
      `attacker: ${posts} posts of ${BATCH} messages, ${wipes} rounds of clearing/deleting a ${SEEDED_MESSAGES}-message queue and two ${SEEDED_ITEMS}-item caches (re-seeded each round)`,
    );
    victimFigures('under attack', baseline, during, cpuDuring);
    slowlogFigures(slow, await scriptReference(redis));
    const intact = JSON.stringify(healthy?.value) === '"v"';
    console.log(`victim's item intact after the attack: ${intact}`);
    if (!intact) throw new Error("the victim's cache item was not intact after the attack");
  } finally {
    attack?.kill('SIGTERM');
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

if (process.argv[2] === 'storage-attacker') {
  await serveAttack(storageFlood);
  process.exit(0);
} else if (process.argv[2] === 'loop-attacker') {
  await serveAttack(loopFlood);
  process.exit(0);
} else if (process.argv[2] === 'function-attacker') {
  await serveAttack(functionFlood);
  process.exit(0);
} else if (process.argv[2] === 'attacker') {
  const { info, tenant } = JSON.parse(process.env.BENCH_ATTACK!) as { info: ServerInfo; tenant: Tenant };
  await attacker(info, tenant);
  process.exit(0);
} else {
  await main();
}
