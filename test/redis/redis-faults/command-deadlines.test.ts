import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import {
  createRedisClient,
  failFast,
  isRedisUnavailable,
  redisErrorKind,
  waitForRedis,
} from '../../../src/core/redis.js';
import { startTestRedis } from '../../helpers/redis.js';

const DEADLINE_MS = 300;
const PAUSE_MS = 2000;

// A fail-fast connection's commands fail when Redis does not answer in time (a hung Redis), with
// one sweep per connection instead of ioredis's timer per command; answers in time are untouched.
describe('command deadlines of a fail-fast connection', () => {
  let server: Awaited<ReturnType<typeof startTestRedis>>;
  let client: Redis;
  let admin: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    client = createRedisClient(server.url, 'deadlines-test', failFast(DEADLINE_MS)) as Redis;
    admin = createRedisClient(server.url, 'deadlines-admin') as Redis;
    await waitForRedis(client, 10_000);
  });

  afterAll(async () => {
    client?.disconnect();
    admin?.disconnect();
    await server?.stop();
  });

  it('arms no timer per command', async () => {
    expect(client.options.commandTimeout).toBeUndefined();
    await client.set('k', 'v');
    expect(await client.get('k')).toBe('v');
  });

  it('fails the commands Redis does not answer in time as timed out (a 503), then serves again', async () => {
    await admin.client('PAUSE', PAUSE_MS, 'ALL');
    const started = Date.now();
    const outcomes = await Promise.allSettled([client.get('k'), client.set('k2', 'v2'), client.incr('n')]);
    const waitedMs = Date.now() - started;
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const error = (outcome as PromiseRejectedResult).reason as Error;
      expect(error.message).toBe('Command timed out');
      expect(redisErrorKind(error)).toBe('timeout');
      expect(isRedisUnavailable(error)).toBe(true);
    }
    // Not before the deadline, and long before Redis answers again.
    expect(waitedMs).toBeGreaterThanOrEqual(DEADLINE_MS - 5);
    expect(waitedMs).toBeLessThan(PAUSE_MS - 500);
    // Redis holds every client's commands while paused, the admin's too: its PING answers once it is over.
    await admin.ping();
    // The late answers to the failed commands are ignored: later commands get their own.
    expect(await client.get('k')).toBe('v');
    expect(await client.echo('after')).toBe('after');
  });
});
