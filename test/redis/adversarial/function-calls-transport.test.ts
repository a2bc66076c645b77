import { beforeAll, describe, expect, it } from 'vitest';
import { newObjectId } from '../../../src/core/ids.js';
import type { RedisClient } from '../../../src/core/redis.js';
import { encodeCallMessage } from '../../../src/functions/calls/call-message.js';
import type { CallOwner } from '../../../src/functions/calls/call-queue.js';
import type { FunctionInvocation, FunctionResult } from '../../../src/functions/calls/function-executor.js';
import type { FunctionStores } from '../../../src/functions/services.js';
import { INLINE_REPLY_BYTES } from '../../../src/functions/calls/reply-bodies.js';
import { goneRouteOf } from '../../../src/functions/routes/route-notices.js';
import { useTestServer } from '../../helpers/test-file.js';

// How function calls travel between controllers and runners, as a hostile tenant would strain it.
// One tenant's flood of calls must delay only its own: the dispatch queue keeps a line per app
// and runners take in turn across projects, then across each project's apps. A sync call's answer
// travels back by pub/sub, on the subscriber connection that also carries every token, route and
// cache notice of the controller: only small notices may travel there. Runs on a Redis Cluster
// too (every key of a cluster's queue shares one hash tag).
const server = useTestServer();
let stores: FunctionStores;
let redis: RedisClient;
let clusters = 0;

beforeAll(async () => {
  stores = server.running.ctx.functions;
  redis = server.running.ctx.redis;
});

/** A call message of `owner`, told apart by `label` (its call id). */
function messageOf(owner: CallOwner, label: string): string {
  const invocation = { callId: label, appName: owner.appName, projectId: owner.projectId } as FunctionInvocation;
  return encodeCallMessage({ invocation: { ...invocation, body: Buffer.alloc(0) } });
}

const labelOf = (message: string | null) => (message === null ? null : JSON.parse(message).invocation.callId);

const hostile = { appName: 'flood', projectId: 'hostile' };
const hostileToo = { appName: 'flood-2', projectId: 'hostile' };
const victim = { appName: 'quiet', projectId: 'victim' };

async function queueAll(cluster: string, owner: CallOwner, prefix: string, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) await stores.queue.push(cluster, owner, messageOf(owner, `${prefix}${i}`));
}

async function takeAll(cluster: string, runnerId: string, skip: string[] = []): Promise<string[]> {
  const taken: string[] = [];
  for (;;) {
    const label = labelOf(await stores.queue.take(cluster, runnerId, skip));
    if (label === null) return taken;
    taken.push(label);
  }
}

describe('the function call queue', () => {
  it("serves a victim's calls in turn with a flood queued before them", async () => {
    const cluster = `fair${++clusters}`;
    await queueAll(cluster, hostile, 'h', 20);
    await queueAll(cluster, victim, 'v', 2);
    const order = await takeAll(cluster, 'r1');
    expect(order.slice(0, 4)).toEqual(['h1', 'v1', 'h2', 'v2']);
    expect(order).toHaveLength(22);
  });

  it("turns between a project's apps, and counts a project once however many apps it has", async () => {
    const cluster = `fair${++clusters}`;
    await queueAll(cluster, hostile, 'a', 3);
    await queueAll(cluster, hostileToo, 'b', 3);
    await queueAll(cluster, victim, 'v', 3);
    const order = await takeAll(cluster, 'r1');
    expect(order).toEqual(['a1', 'v1', 'b1', 'v2', 'a2', 'v3', 'b2', 'a3', 'b3']);
  });

  it('leaves the calls of skipped projects queued (they hold all the slots they may), and takes them later', async () => {
    const cluster = `fair${++clusters}`;
    await queueAll(cluster, hostile, 'h', 3);
    await queueAll(cluster, victim, 'v', 1);
    expect(await takeAll(cluster, 'r1', ['hostile'])).toEqual(['v1']);
    expect(await takeAll(cluster, 'r1')).toEqual(['h1', 'h2', 'h3']);
  });

  it('withdraws a call not taken yet, and a line left empty leaves the rings', async () => {
    const cluster = `fair${++clusters}`;
    const message = messageOf(victim, 'v1');
    await stores.queue.push(cluster, victim, message);
    expect(await stores.queue.withdraw(cluster, victim, message)).toBe(true);
    expect(await stores.queue.withdraw(cluster, victim, message)).toBe(false);
    expect(await redis.llen(stores.keys.queuedProjects(cluster))).toBe(0);
    expect(await redis.llen(stores.keys.queuedApps(cluster, victim.projectId))).toBe(0);
    expect(await takeAll(cluster, 'r1')).toEqual([]);
  });

  it("gives a dead runner's calls back to the front of their apps' lines", async () => {
    const cluster = `fair${++clusters}`;
    await queueAll(cluster, hostile, 'h', 3);
    await queueAll(cluster, victim, 'v', 1);
    await stores.queue.hold(cluster, 'dead');
    expect(await takeAll(cluster, 'dead', ['victim'])).toEqual(['h1', 'h2', 'h3']);
    expect(await stores.queue.reclaim(cluster, async (id) => id !== 'dead')).toBe(3);
    // Given back to the front: their project is served next, its oldest call first.
    expect(await takeAll(cluster, 'r2')).toEqual(['h1', 'v1', 'h2', 'h3']);
    expect(await redis.sismember(stores.keys.holders(cluster), 'dead')).toBe(0);
  });

  it('still takes the calls an earlier version queued on its one shared list', async () => {
    const cluster = `fair${++clusters}`;
    await redis.lpush(stores.keys.pending(cluster), messageOf(victim, 'old'));
    expect(await takeAll(cluster, 'r1')).toEqual(['old']);
  });

  it('wakes a runner waiting for calls when one is queued', async () => {
    const cluster = `fair${++clusters}`;
    const waiting = server.openRedis();
    try {
      const woken = stores.queue.waitForCalls(waiting, cluster, 5);
      await stores.queue.push(cluster, victim, messageOf(victim, 'v1'));
      expect(await woken).toBe(true);
    } finally {
      waiting.disconnect();
    }
  });
});

const resultOf = (body: Buffer): FunctionResult => ({
  outcome: 'success',
  status: 201,
  headers: { 'x-made': 'here' },
  body,
  stderr: '',
});

describe('answers of sync calls', () => {
  it('travel inside the notice when small', async () => {
    const callId = newObjectId();
    const notice = await stores.replyBodies.notice(callId, resultOf(Buffer.from('small')));
    expect(await redis.exists(stores.keys.replyBody(callId))).toBe(0);
    const reply = await stores.replyBodies.reply(notice);
    expect(reply).toMatchObject({ callId, outcome: 'success', status: 201, headers: { 'x-made': 'here' } });
    expect(reply.body.toString()).toBe('small');
  });

  it('travel in a key of their own when large: the notice stays small, the body is taken once', async () => {
    const callId = newObjectId();
    const body = Buffer.alloc(3 * 1024 * 1024, 7);
    const notice = await stores.replyBodies.notice(callId, resultOf(body));
    expect(notice.length).toBeLessThan(INLINE_REPLY_BYTES);
    expect(await redis.pttl(stores.keys.replyBody(callId))).toBeGreaterThan(0);
    const reply = await stores.replyBodies.reply(notice);
    expect(reply.body.equals(body)).toBe(true);
    expect(await redis.exists(stores.keys.replyBody(callId))).toBe(0);
  });

  it('end as a 502 naming the loss when the stored body is gone', async () => {
    const callId = newObjectId();
    const notice = await stores.replyBodies.notice(callId, resultOf(Buffer.alloc(INLINE_REPLY_BYTES + 1)));
    await redis.del(stores.keys.replyBody(callId));
    const reply = await stores.replyBodies.reply(notice);
    expect(reply).toMatchObject({ callId, outcome: 'error', status: 502 });
    expect(reply.errorMessage).toMatch(/answer was lost/);
  });
});

describe('route notices', () => {
  it('name what is gone: a route, an app, a project; other changes name nothing', () => {
    expect(goneRouteOf(JSON.stringify({ gone: { app: 'a', path: '/p' } }))).toEqual({ app: 'a', path: '/p' });
    expect(goneRouteOf(JSON.stringify({ gone: { app: 'a' } }))).toEqual({ app: 'a' });
    expect(goneRouteOf(JSON.stringify({ gone: { project: 'p1' } }))).toEqual({ project: 'p1' });
    expect(goneRouteOf('*')).toBeNull();
    expect(goneRouteOf('not json')).toBeNull();
    expect(goneRouteOf(JSON.stringify({ gone: { app: 3 } }))).toBeNull();
  });
});
