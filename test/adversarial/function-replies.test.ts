import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../src/core/redis.js';
import type { FunctionResult } from '../../src/functions/function-executor.js';
import { INLINE_REPLY_BYTES } from '../../src/functions/reply-bodies.js';
import { goneRouteOf } from '../../src/functions/route-notices.js';
import type { FunctionStores } from '../../src/functions/services.js';
import { newObjectId } from '../../src/core/ids.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// A sync call's answer travels back by pub/sub, on the subscriber connection that also carries
// every token, route and cache notice of the controller: only small notices may travel there.
let server: TestServer;
let stores: FunctionStores;
let redis: RedisClient;

beforeAll(async () => {
  server = await startTestServer();
  stores = server.running.ctx.functions;
  redis = server.running.ctx.redis;
});
afterAll(async () => {
  await server?.stop();
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
