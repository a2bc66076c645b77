// The storage flood of the isolation benchmark: a hostile tenant writes as much as it can —
// cache items of the largest size allowed, over and over, and full batches of the largest
// messages — while the victim's cache GET latency is measured (lib/isolation-figures.ts: its target).
import { victimFigures } from './isolation-figures.js';
import { sendAs, type Tenant } from './tenants.js';
import { figure } from './report.js';
import { victimUnderAttack, type CpuShare, type SlowEntry } from './victim-under-attack.js';

/** The largest cache value by default (FERRUM_CACHE_MAX_VALUE_BYTES), less room for the JSON. */
const ITEM = 'x'.repeat(1024 * 1024 - 64);
/** Items written over and over, so the flood's footprint stays bounded. */
const ITEM_KEYS = 200;
/** A post of 90 messages of 64 KB (the largest body; the most under the post body limit, 6 MiB). */
const POST = JSON.stringify({ messages: Array.from({ length: 90 }, () => ({ body: 'm'.repeat(64 * 1024) })) });
/** The queue is cleared after this many posts, for the same reason. */
const POSTS_PER_CLEAR = 10;
const WRITERS = 4;

interface Written {
  items: number;
  posts: number;
  /** Writes answered 4xx (a quota, say): the flood goes on regardless. */
  refused: number;
}

const send = sendAs;

export interface StorageAttack {
  info: { url: string };
  hostile: Tenant;
  seconds: number;
}

/** The attacker's part (in a process of its own: see attacker-child.ts). */
export async function storageFlood({ info, hostile, seconds }: StorageAttack): Promise<Written> {
  const endAt = Date.now() + seconds * 1000;
  const written: Written = { items: 0, posts: 0, refused: 0 };
  const cache = `/1/projects/${hostile.projectId}/caches/flood/items`;
  const queue = `/3/projects/${hostile.projectId}/queues/flood/messages`;
  const item = JSON.stringify({ value: ITEM });
  const count = (status: number, kind: 'items' | 'posts') => (status < 300 ? written[kind]++ : written.refused++);
  const itemWriter = async (writer: number) => {
    for (let i = writer; Date.now() < endAt; i += WRITERS)
      count(await send(info, hostile, 'PUT', `${cache}/k${i % ITEM_KEYS}`, item), 'items');
  };
  const poster = async () => {
    while (Date.now() < endAt) {
      count(await send(info, hostile, 'POST', queue, POST), 'posts');
      if (written.posts % POSTS_PER_CLEAR === 0) await send(info, hostile, 'DELETE', queue, '{}');
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, writer) => itemWriter(writer));
  await Promise.all([...writers, poster()]);
  return written;
}

/** Runs the scenario on a server of its own; prints its lines and figures. */
export async function runStorageFlood(seconds: number): Promise<void> {
  const { alone, during, outcome, cpu, slowest } = await victimUnderAttack<Written>(
    'storage-attacker',
    seconds,
    (info, hostile) => ({
      info,
      hostile,
      seconds,
    }),
  );
  const { items, posts, refused } = outcome;
  console.log(
    `storage flood: ${seconds}s, the attacker wrote ${items} cache items of 1 MiB (over ${ITEM_KEYS} keys) and ${posts} posts of 90 × 64 KB messages; ${refused} writes refused`,
  );
  victimFigures('under storage flood', alone, during, cpu.during);
  redisFigures(seconds, items + (posts * POST.length) / ITEM.length, cpu.during, slowest);
}

/**
 * What the flood cost Redis: its CPU per MiB the attacker wrote, and the longest single commands
 * (SLOWLOG, which also lists the commands a script ran): figures that hold on a loaded machine,
 * where the victim's ratio moves with everything else running.
 */
function redisFigures(seconds: number, mebibytes: number, cpu: CpuShare, slowest: SlowEntry[]): void {
  const perMiB = (share: number) => (share * seconds * 10) / mebibytes;
  const top = slowest[0];
  console.log(
    `storage flood, per MiB written: Redis CPU ${perMiB(cpu.redis).toFixed(2)} ms, server CPU ${perMiB(cpu.server).toFixed(2)} ms; ` +
      `slowest SLOWLOG entries: ${slowest.map((entry) => `${entry.ms.toFixed(1)} ms (${entry.command})`).join(', ') || 'none over 1 ms'}`,
  );
  figure('isolation Redis CPU per MiB written under storage flood', perMiB(cpu.redis), 'ms', { better: 'lower' });
  figure('isolation server CPU per MiB written under storage flood', perMiB(cpu.server), 'ms', { better: 'lower' });
  figure('isolation slowest Redis SLOWLOG entry under storage flood', top?.ms ?? 0, 'ms', { better: 'lower' });
}
