import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus } from '../../src/core/bus.js';
import { eventually } from '../helpers/eventually.js';
import { startTestRedis } from '../helpers/redis.js';

let redis: Awaited<ReturnType<typeof startTestRedis>>;
const connections: Redis[] = [];
const connect = (options = {}) => {
  const connection = new Redis(redis.url, options);
  connections.push(connection);
  return connection;
};

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  for (const connection of connections) connection.disconnect();
  await redis?.stop();
});

describe('the event bus', () => {
  it('a second listener of a channel still being subscribed hears what is published once it resolves', async () => {
    const bus = new EventBus(connect(), connect());
    const heard: string[] = [];
    const first = bus.subscribe('wake', (message) => heard.push(`first ${message}`));
    await bus.subscribe('wake', (message) => heard.push(`second ${message}`));
    await bus.publish('wake', 'now');
    await first;
    await eventually(() => heard.length === 2, 5000, 'both listeners to hear');
    expect(heard.sort()).toEqual(['first now', 'second now']);
  });

  it('a refused subscription is retried by the next listener; the last unsubscribe stops the channel', async () => {
    const subscriber = connect({ lazyConnect: true, enableOfflineQueue: false });
    const bus = new EventBus(subscriber, connect());
    await expect(bus.subscribe('retry', () => undefined)).rejects.toThrow();
    if (subscriber.status === 'wait') await subscriber.connect();
    await eventually(() => subscriber.status === 'ready', 5000, 'the connection');
    const heard: string[] = [];
    const stop = await bus.subscribe('retry', (message) => heard.push(message));
    await bus.publish('retry', 'one');
    await eventually(() => heard.length === 1, 5000, 'the message');
    await stop();
    const listeners = await connect().pubsub('NUMSUB', 'retry');
    expect(listeners).toEqual(['retry', 0]);
  });
});
