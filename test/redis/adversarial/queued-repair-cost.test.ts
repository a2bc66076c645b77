import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../../src/core/redis.js';
import { QueuedTaskRepair, REPAIR_ENTRIES_PER_PASS } from '../../../src/worker/tasks/queues/queued-repair.js';
import { scaled } from '../../helpers/pace.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

// The task sweeper runs QueuedTaskRepair on every project each pass. A tenant holding the
// queued_tasks quota's worth of entries (100,000 by default) must not make every pass walk them
// all, delaying every other project's expiry, dispatch and repair: each pass checks a bounded
// number of a project's entries and the next pass goes on from there.
let server: TestServer;
let redis: RedisClient;

beforeAll(async () => {
  server = await startTestServer();
  redis = server.openRedis();
}, scaled(60_000));

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

const ENTRIES = 10_000;

describe('the queued tasks repair on a project of many entries', () => {
  it(
    'checks a bounded share per pass and releases them all over the passes that follow',
    async () => {
      const keys = server.running.ctx.worker.keys;
      const projectId = 'a'.repeat(24);
      const payloads = keys.queuedPayloads(projectId);
      // Entries of tasks gone long ago (ids whose first 8 hex digits, their creation second, are old).
      const flat: string[] = [];
      for (let i = 0; i < ENTRIES; i++) flat.push(`00000001${i.toString(16).padStart(16, '0')}`, '10');
      for (let i = 0; i < flat.length; i += 2_000) await redis.hset(payloads, ...flat.slice(i, i + 2_000));
      await redis.set(keys.queuedPayloadTotal(projectId), String(ENTRIES * 10));

      const repair = new QueuedTaskRepair(redis, keys);
      const perPass: number[] = [];
      for (let pass = 0; pass < 20 && (await redis.hlen(payloads)) > 0; pass++)
        perPass.push(await repair.repair(projectId));
      // COUNT is a hint to HSCAN: a batch may return a few more than asked.
      for (const released of perPass) expect(released).toBeLessThanOrEqual(REPAIR_ENTRIES_PER_PASS + 500);
      expect(perPass.length).toBeGreaterThanOrEqual(Math.ceil(ENTRIES / (REPAIR_ENTRIES_PER_PASS + 500)));
      expect(perPass.reduce((sum, n) => sum + n, 0)).toBe(ENTRIES);
      expect(await redis.get(keys.queuedPayloadTotal(projectId))).toBe('0');
    },
    scaled(120_000),
  );
});
