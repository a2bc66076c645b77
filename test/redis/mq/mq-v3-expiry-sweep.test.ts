import type { RedisClient } from '../../../src/core/redis.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MqClient, uniqueQueue } from '../../helpers/mq.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { scriptClock } from '../../../src/core/lua.js';
import { eventually } from '../../helpers/eventually.js';

let server: TestServer;
let mq: MqClient;
let observer: RedisClient;
beforeAll(async () => {
  server = await startTestServer({ FERRUM_MQ_SWEEP_MS: '200' });
  mq = new MqClient(server.http, server.projectId);
  observer = server.openRedis();
});
afterAll(async () => {
  observer?.disconnect();
  await server?.stop();
});

it('the sweeper drops expired messages of queues nobody touches', async () => {
  const queue = uniqueQueue('idle');
  await mq.createQueue(queue, { message_expiration: 1 });
  await mq.post(
    queue,
    Array.from({ length: 50 }, (_, i) => ({ body: `m${i}` })),
  );
  const keys = (part: string) => `ferrum:{mq:${server.projectId}:${encodeURIComponent(queue)}}:${part}`;
  expect(await observer.hlen(keys('body'))).toBe(50);
  scriptClock.advance(1100);
  // Nothing reads the queue meanwhile: only the sweeper can remove them.
  await eventually(async () => (await observer.hlen(keys('body'))) === 0, 10_000, 'the sweep');
  expect(await observer.zcard(keys('ready'))).toBe(0);
  expect(await observer.zcard(keys('expiry'))).toBe(0);
  expect(await observer.exists(keys('queue'))).toBe(1);
});

it('one controller holds the sweeper lease', async () => {
  expect(await observer.exists('ferrum:lease:mq-sweeper')).toBe(1);
});

it('a message can carry its own expiration (for API versions that allow it)', async () => {
  const service = server.running.ctx.mq;
  const queue = uniqueQueue('own-expiry');
  const ref = { projectId: server.projectId, name: queue };
  const [short, long] = await service.post(ref, [{ body: 'short', expiresIn: 1 }, { body: 'queue default' }]);
  scriptClock.advance(1100);
  await expect(service.get(ref, short!)).rejects.toThrow('Message not found');
  expect((await service.get(ref, long!)).body).toBe('queue default');
});
