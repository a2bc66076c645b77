import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisErrorKind } from '../src/core/redis.js';
import { eventually } from './helpers/eventually.js';
import { startTestServer, type TestServer } from './helpers/server.js';

describe('Redis error kinds', () => {
  it('names errors with a bounded set of kinds', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(redisErrorKind(refused)).toBe('ECONNREFUSED');
    expect(redisErrorKind(new Error('Command timed out'))).toBe('timeout');
    const oom = Object.assign(new Error("OOM command not allowed when used memory > 'maxmemory'."), {
      name: 'ReplyError',
    });
    expect(redisErrorKind(oom)).toBe('OOM');
    expect(redisErrorKind(Object.assign(new Error('x'), { name: 'MaxRetriesPerRequestError' }))).toBe('unavailable');
    expect(redisErrorKind('not an error')).toBe('other');
  });
});

describe('ferrum_redis_errors_total', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop().catch(() => undefined);
  });

  it('counts the lost connection and the requests Redis could not serve', async () => {
    const admin = new Redis(server.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await admin.connect();
    await admin.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
    admin.disconnect();
    const refused = await eventually(async () => {
      const response = await server.http.get(`/1/projects/${server.projectId}`);
      return response.status === 503 ? response : undefined;
    }, 15_000);
    expect(refused.headers.get('retry-after')).toBe('1');
    const counted = await eventually(async () => {
      const { values } = await server.running.ctx.metrics.redisErrors.get();
      const byKind = Object.fromEntries(values.map((sample) => [sample.labels.kind, sample.value]));
      return (byKind.unavailable ?? 0) > 0 && Object.keys(byKind).some((kind) => /^E[A-Z]+$/.test(String(kind)))
        ? byKind
        : undefined;
    }, 15_000);
    expect(Object.keys(counted).every((kind) => /^(E[A-Z]+|timeout|unavailable|[A-Z]+|other)$/.test(kind))).toBe(true);
  });
});
