// The function flood of the isolation benchmark: a hostile tenant queues slow async calls as fast
// as it can, on the same runner as a victim whose sync calls of a hot function are timed beside its
// cache GETs, alone (the victim's calls and GETs together, no attacker) and under the flood (target:
// call p99 under 2x alone; the GET's target in lib/isolation-figures.ts).
import { startAttacker, type Attack } from './attacker-child.js';
import { startCacheServer } from './cache-server-child.js';
import { victimFigures } from './isolation-figures.js';
import { figure, SMOKE } from './report.js';
import { api, newTenant, type Tenant } from './tenants.js';
import { victimGets } from './victim-gets.js';

const VICTIM_CALLERS = 2;
const FLOOD_POSTERS = 4;
/** How long each of the attacker's calls keeps a slot. */
const SLOW_CALL_MS = SMOKE ? 1000 : 3000;
const HOT_ROUTE = { image: 'ferrum-test/fn-hot-http', format: 'http', timeout: 30, idle_timeout: 600 };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Calls as `tenant` until `endAt`, from `callers` loops; the sorted latencies (ms) and the failures. */
async function callUntil(url: string, endAt: number, callers: number, headers: Record<string, string> = {}) {
  const latencies: number[] = [];
  const failures: string[] = [];
  const caller = async () => {
    while (Date.now() < endAt) {
      const started = performance.now();
      const response = await fetch(url, { method: 'POST', body: 'ping', headers });
      await response.arrayBuffer();
      if (response.status >= 300) failures.push(String(response.status));
      else latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  return { latencies: latencies.sort((a, b) => a - b), failures };
}

/** The attacker's part (in a process of its own): queues slow calls until the time is up; how many. */
export async function functionFlood({ url, seconds }: { url: string; seconds: number }): Promise<number> {
  const endAt = Date.now() + seconds * 1000;
  let queued = 0;
  const poster = async () => {
    while (Date.now() < endAt) {
      const response = await fetch(`${url}/r/hostile-app/slow`, {
        method: 'POST',
        body: 'flood',
        headers: { 'x-sleep-ms': String(SLOW_CALL_MS) },
      });
      await response.arrayBuffer();
      if (response.status === 202) queued++;
    }
  };
  await Promise.all(Array.from({ length: FLOOD_POSTERS }, poster));
  return queued;
}

async function route(info: { url: string }, tenant: Tenant, app: string, settings: Record<string, unknown>) {
  await api(info, tenant.token, 'POST', `/v1/apps/${app}/routes`, { route: settings });
}

/** Runs the scenario on a server with a runner of its own; prints its lines and figures. */
export async function runFunctionFlood(seconds: number): Promise<void> {
  const { child: server, info } = await startCacheServer('bench/function-server.ts');
  let attacker: Attack<number> | null = null;
  try {
    const victim = await newTenant(info, 'victim');
    const hostile = await newTenant(info, 'hostile');
    await api(info, victim.token, 'PUT', `/1/projects/${victim.projectId}/caches/mine/items/hot`, { value: 'v' });
    await route(info, victim, 'victim-app', { ...HOT_ROUTE, path: '/echo', max_concurrency: VICTIM_CALLERS });
    await route(info, hostile, 'hostile-app', { ...HOT_ROUTE, path: '/slow', type: 'async', max_concurrency: 20 });
    const victimUrl = `${info.url}/r/victim-app/echo`;
    await callUntil(victimUrl, Date.now() + 1000, VICTIM_CALLERS); // its hot containers started
    // Alone is the victim's same load (its calls and its GETs together) without the attacker, so
    // each ratio compares one load with and without the flood.
    const aloneSeconds = SMOKE ? 2 : 5;
    const [alone, getsAlone] = await Promise.all([
      callUntil(victimUrl, Date.now() + aloneSeconds * 1000, VICTIM_CALLERS),
      victimGets(info, victim, aloneSeconds),
    ]);

    const attack = startAttacker<number>('function-attacker', { url: info.url, seconds });
    attacker = attack;
    await attack.started;
    const endAt = Date.now() + seconds * 1000;
    const [during, gets] = await Promise.all([
      callUntil(victimUrl, endAt, VICTIM_CALLERS),
      victimGets(info, victim, seconds),
    ]);
    const queued = await attack.outcome;
    const p99Alone = percentile(alone.latencies, 99);
    const p99During = percentile(during.latencies, 99);
    console.log(
      `function flood: ${seconds}s, the attacker queued ${queued} async calls of ${SLOW_CALL_MS} ms each (${FLOOD_POSTERS} posters)`,
    );
    console.log(
      `victim hot function calls (${VICTIM_CALLERS} callers): alone p50 ${percentile(alone.latencies, 50).toFixed(1)} ms, p99 ${p99Alone.toFixed(1)} ms (${alone.latencies.length} calls); ` +
        `under the flood p50 ${percentile(during.latencies, 50).toFixed(1)} ms, p99 ${p99During.toFixed(1)} ms (${during.latencies.length} calls, ${during.failures.length} failed${during.failures.length ? `: ${[...new Set(during.failures)].join(', ')}` : ''})   (target p99 < 2x alone)`,
    );
    figure('isolation victim function call p99 under flood / alone', p99During / p99Alone, 'x', {
      better: 'lower',
      target: 2,
      reference: `the same calls alone, p99 ${p99Alone.toFixed(1)} ms`,
    });
    victimFigures('under function flood', getsAlone, gets);
    if (during.failures.length > 0)
      throw new Error(`${during.failures.length} of the victim's calls failed under the flood`);
  } finally {
    attacker?.stop();
    server.kill('SIGTERM');
  }
}
