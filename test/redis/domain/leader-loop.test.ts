import { afterEach, describe, expect, it } from 'vitest';
import { LeaderLoop } from '../../../src/core/leader-loop.js';
import { eventually } from '../../helpers/eventually.js';
import { useSharedRedis } from '../../helpers/shared-redis.js';

const shared = useSharedRedis();
const silentLog = { info: () => undefined, warn: () => undefined };
const loops: LeaderLoop[] = [];

afterEach(async () => {
  await Promise.all(loops.splice(0).map((loop) => loop.stop()));
});

/** A leader loop of a minute (the task sweeper's default) that records what it reports and runs. */
function minuteLoop(name: string) {
  const reports: boolean[] = [];
  let passes = 0;
  const loop = new LeaderLoop({
    redis: shared.redis,
    keys: shared.keys,
    name,
    intervalMs: 60_000,
    log: silentLog,
    leadership: { report: (_loop, held) => reports.push(held) },
    work: async () => {
      passes++;
    },
  });
  loops.push(loop);
  return { loop, reports, passes: () => passes };
}

describe('a leader loop', () => {
  it('says at start whether it leads, not one interval later; its first pass still waits the interval', async () => {
    const first = minuteLoop('sweeper');
    const second = minuteLoop('sweeper');
    first.loop.start();
    await eventually(() => first.reports.length === 1, 5000, 'the first loop to report');
    second.loop.start();
    await eventually(() => second.reports.length === 1, 5000, 'the second loop to report');
    expect(first.reports).toEqual([true]);
    expect(second.reports).toEqual([false]);
    expect(await shared.redis.pttl(shared.keys.of('lease', 'sweeper'))).toBeGreaterThan(60_000);
    expect(first.passes() + second.passes()).toBe(0);
  });

  it('stopped while it takes its lease at start, it releases the lease and reports it no longer leads', async () => {
    const only = minuteLoop('janitor');
    only.loop.start();
    await only.loop.stop();
    expect(only.reports.at(-1)).toBe(false);
    expect(await shared.redis.exists(shared.keys.of('lease', 'janitor'))).toBe(0);
  });
});
