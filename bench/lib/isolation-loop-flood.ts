// The loop and fan-out attempts of the isolation benchmark: a hostile tenant builds what would
// make Ferrum write forever (two push queues joined by concurrent PUTs, two pull queues whose
// alerts post to each other, two push queues reporting errors to each other) and the widest
// in-process fan-out allowed, then posts into them as fast as it can. The hop budget ends every
// loop and the quotas bound every copy, so the victim's cache GET p99 stays within a few times its p99 alone.
import { victimFigures } from './isolation-figures.js';
import { sendAs, type Tenant } from './tenants.js';
import { victimUnderAttack } from './victim-under-attack.js';

/** Subscribers asked for by the widest fan-out (more than allowed), and what the queue gets then. */
const ASKED_SUBSCRIBERS = 150;
const ALLOWED_SUBSCRIBERS = 64;
const BODY = 'f'.repeat(50 * 1024);

export type LoopAttempt = 'loop' | 'fan-out';

interface Done {
  posts: number;
  /** Setting saves the service refused with 400 (the loops and the 150 subscribers it could see). */
  refusedSettings: number;
  /** Posts answered 4xx (a quota): the flood goes on regardless. */
  refused: number;
}

export interface LoopAttack {
  info: { url: string };
  hostile: Tenant;
  seconds: number;
  attempt: LoopAttempt;
}

/** One request as `tenant` with a JSON body; its status (a 5xx fails the scenario). */
function send(info: { url: string }, tenant: Tenant, method: string, path: string, body: unknown) {
  return sendAs(info, tenant, method, path, JSON.stringify(body));
}

const push = (urls: string[], extra: Record<string, unknown> = {}) => ({
  queue: { type: 'multicast', push: { subscribers: urls.map((url, i) => ({ name: `s${i}`, url })), ...extra } },
});

/** Builds the attempt's queues; returns the queues it posts to and how many saves were refused. */
async function build(attack: LoopAttack): Promise<{ targets: string[]; refusedSettings: number }> {
  const { info, hostile, attempt } = attack;
  const queues = `/3/projects/${hostile.projectId}/queues`;
  const put = (name: string, body: unknown) => send(info, hostile, 'PUT', `${queues}/${name}`, body);
  let statuses: number[];
  if (attempt === 'loop') {
    const alerts = (queue: string) => ({
      queue: { alerts: [{ type: 'progressive', direction: 'asc', trigger: 1, queue }] },
    });
    statuses = await Promise.all([
      put('ra', push(['ironmq:///rb'])),
      put('rb', push(['ironmq:///ra'])),
      put('al1', alerts('al2')),
      put('al2', alerts('al1')),
      put('e1', push(['ironworker:///missing'], { retries: 0, error_queue: 'e2' })),
      put('e2', push(['ironworker:///missing'], { retries: 0, error_queue: 'e1' })),
    ]);
    return { targets: ['ra', 'al1', 'e1'], refusedSettings: statuses.filter((status) => status === 400).length };
  }
  const wide = (count: number) => Array.from({ length: count }, (_, i) => `ironmq:///sink${i % 8}`);
  statuses = [await put('fan', push(wide(ASKED_SUBSCRIBERS)))];
  statuses.push(await put('fan', push(wide(ALLOWED_SUBSCRIBERS))));
  return { targets: ['fan'], refusedSettings: statuses.filter((status) => status === 400).length };
}

/** The attacker's part (in a process of its own: see attacker-child.ts). */
export async function loopFlood(attack: LoopAttack): Promise<Done> {
  const { info, hostile, seconds } = attack;
  const { targets, refusedSettings } = await build(attack);
  const endAt = Date.now() + seconds * 1000;
  const done: Done = { posts: 0, refusedSettings, refused: 0 };
  const poster = async (queue: string) => {
    const path = `/3/projects/${hostile.projectId}/queues/${queue}/messages`;
    while (Date.now() < endAt) {
      const status = await send(info, hostile, 'POST', path, { messages: [{ body: BODY }] });
      if (status < 300) done.posts++;
      else done.refused++;
    }
  };
  await Promise.all(targets.map((queue) => poster(queue)));
  return done;
}

/** The attempts to run (BENCH_LOOP_ATTEMPTS, e.g. `loop`; both by default). */
const ATTEMPTS = (process.env.BENCH_LOOP_ATTEMPTS?.split(',') ?? ['loop', 'fan-out']) as LoopAttempt[];

/** Runs the attempts, each on a server of its own; prints their lines and figures. */
export async function runLoopFloods(seconds: number): Promise<void> {
  for (const attempt of ATTEMPTS) await runLoopFlood(attempt, seconds);
}

async function runLoopFlood(attempt: LoopAttempt, seconds: number): Promise<void> {
  const { alone, during, outcome, cpu } = await victimUnderAttack<Done>('loop-attacker', seconds, (info, hostile) => ({
    info,
    hostile,
    seconds,
    attempt,
  }));
  const { posts, refusedSettings, refused } = outcome;
  console.log(
    attempt === 'loop'
      ? `${attempt} attempt: ${seconds}s, push, alert and error-report loops built (${refusedSettings} of 6 saves refused with 400), ${posts} posts of 50 KB into them, ${refused} refused`
      : `${attempt} attempt: ${seconds}s, ${ASKED_SUBSCRIBERS} ironmq:/// subscribers asked (${refusedSettings} save refused with 400), ${ALLOWED_SUBSCRIBERS} set, ${posts} posts of 50 KB, ${refused} refused by quotas`,
  );
  victimFigures(`during a ${attempt} attempt`, alone, during, cpu.during);
  // What one attacker post (and the hops it causes) costs: evidence that holds on a loaded machine.
  const perPost = (share: number) => ((share / 100) * seconds * 1000) / Math.max(posts, 1);
  console.log(
    `  CPU per attacker post during the ${attempt} attempt: server ${perPost(cpu.during.server).toFixed(1)} ms, its Redis ${perPost(cpu.during.redis).toFixed(1)} ms`,
  );
}
