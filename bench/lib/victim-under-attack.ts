// One isolation scenario: a server of its own, a victim with a cache item and a hostile tenant,
// the victim's cache GET latency alone, then while an attacker (a process of its own) attacks.
import { startAttacker } from './attacker-child.js';
import { startCacheServer } from './cache-server-child.js';
import { SMOKE } from './report.js';
import { api, newTenant, type Tenant } from './tenants.js';
import { victimGets, type Latency } from './victim-gets.js';

export interface UnderAttack<Outcome> {
  /** The victim's GET latency before the attack. */
  alone: Latency;
  /** The same during the attack. */
  during: Latency;
  /** What the attacker reported. */
  outcome: Outcome;
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
    const alone = await victimGets(info, victim, SMOKE ? 1 : 3);
    const attack = startAttacker<Outcome>(role, payload({ url: info.url }, hostile));
    stop = attack.stop;
    await attack.started;
    const during = await victimGets(info, victim, seconds);
    return { alone, during, outcome: await attack.outcome };
  } finally {
    stop();
    server.kill('SIGTERM');
  }
}
