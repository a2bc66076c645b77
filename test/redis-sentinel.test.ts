import type { RedisOptions } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { missingMessages, startPostLoad, waitFor } from './helpers/post-load.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { startTestSentinel, type TestSentinel } from './helpers/sentinel.js';

// A controller whose Redis is the master a Sentinel names, through a forced failover under load.
let sentinel: TestSentinel;
let server: TestServer;

beforeAll(async () => {
  sentinel = await startTestSentinel();
  server = await startTestServer({
    FERRUM_REDIS_MODE: 'sentinel',
    FERRUM_REDIS_SENTINELS: sentinel.sentinelAddress,
    FERRUM_REDIS_SENTINEL_MASTER: sentinel.masterName,
  });
});

afterAll(async () => {
  await server?.stop();
  await sentinel?.stop();
});

it('uses the master the Sentinel names', async () => {
  expect(server.running.ctx.redisUrl).toMatch(/^redis-sentinel:\/\//);
  const master = await sentinel.masterPort();
  // The connection asked the Sentinel and reached the master it names.
  expect((server.running.ctx.redis.options as RedisOptions).sentinels).toHaveLength(1);
  const replication = await server.running.ctx.redis.info('replication');
  expect(replication).toContain('role:master');
  expect(master).toBeGreaterThan(0);
  const put = await server.http.put(`/1/projects/${server.projectId}/caches/s/items/k`, { value: 'v' });
  expect(put.status).toBe(200);
  expect((await server.http.get(`/1/projects/${server.projectId}/caches/s/items/k`)).body.value).toBe('v');
});

it('keeps every acknowledged message through a forced failover in the middle of posting', async () => {
  const load = startPostLoad(
    Array.from({ length: 4 }, () => server.http),
    server.projectId,
    'failover',
  );
  expect(await waitFor(() => load.acked.length >= 100, 30_000)).toBe(true);
  const before = await sentinel.masterPort();
  await sentinel.failover();
  const switchedAt = Date.now();
  expect(await sentinel.masterPort()).not.toBe(before);
  const ackedAtSwitch = load.acked.length;
  expect(await waitFor(() => load.acked.length >= ackedAtSwitch + 100 && load.lastAckAt > switchedAt, 60_000)).toBe(
    true,
  );
  await load.stop();
  const missing = await missingMessages(server.http, server.projectId, 'failover', load.acked);
  console.log(
    `[sentinel] acknowledged=${load.acked.length} lost=${missing.length} longest_client_outage_ms=${load.longestOutageMs()} failed=${JSON.stringify(Object.fromEntries(load.failures))}`,
  );
  expect(missing).toEqual([]);
  expect((await server.http.get('/ready')).status).toBe(200);
}, 120_000);
