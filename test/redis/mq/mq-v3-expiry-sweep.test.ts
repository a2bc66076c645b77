import { expect, it } from 'vitest';
import { mqTestFile, uniqueQueue } from '../../helpers/mq.js';
import { scriptClock } from '../../../src/core/lua.js';
import { eventually } from '../../helpers/eventually.js';

const file = mqTestFile({ FERRUM_MQ_SWEEP_MS: '200' });

it('the sweeper drops expired messages of queues nobody touches', async () => {
  const queue = uniqueQueue('idle');
  await file.mq.createQueue(queue, { message_expiration: 1 });
  await file.mq.post(
    queue,
    Array.from({ length: 50 }, (_, i) => ({ body: `m${i}` })),
  );
  const keys = (part: string) => `ferrum:{mq:${file.server.projectId}:${encodeURIComponent(queue)}}:${part}`;
  expect(await file.observer.hlen(keys('body'))).toBe(50);
  scriptClock.advance(1100);
  // Nothing reads the queue meanwhile: only the sweeper can remove them.
  await eventually(async () => (await file.observer.hlen(keys('body'))) === 0, 10_000, 'the sweep');
  expect(await file.observer.zcard(keys('ready'))).toBe(0);
  expect(await file.observer.zcard(keys('expiry'))).toBe(0);
  expect(await file.observer.exists(keys('queue'))).toBe(1);
});

it('one controller holds the sweeper lease', async () => {
  expect(await file.observer.exists('ferrum:lease:mq-sweeper')).toBe(1);
});

it('a message can carry its own expiration (for API versions that allow it)', async () => {
  const service = file.server.running.ctx.mq;
  const queue = uniqueQueue('own-expiry');
  const ref = { projectId: file.server.projectId, name: queue };
  const [short, long] = await service.post(ref, [{ body: 'short', expiresIn: 1 }, { body: 'queue default' }]);
  scriptClock.advance(1100);
  await expect(service.get(ref, short!)).rejects.toThrow('Message not found');
  expect((await service.get(ref, long!)).body).toBe('queue default');
});
