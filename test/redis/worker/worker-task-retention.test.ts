import { scanKeys } from '../../../src/core/scan.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/core/config.js';
import type { WorkerServices } from '../../../src/worker/services.js';
import { eventually } from '../../helpers/eventually.js';
import { useRedis, useTestServer } from '../../helpers/test-file.js';
import { workerClientOf } from '../../helpers/worker-test-file.js';
import { createCluster, FAST_WORKER_ENV } from '../../helpers/worker.js';

/** Long enough for the checks made before the sweep on a loaded machine (at 400 ms the sweeper came first). */
const RETENTION_MS = 3000;

const server = useTestServer({
  ...FAST_WORKER_ENV,
  FERRUM_TEST_MODE: '1',
  FERRUM_TEST_TASK_RETENTION_MS: String(RETENTION_MS),
  FERRUM_TASK_SWEEP_MS: '100',
});
const client = workerClientOf(server);
const redis = useRedis(server);
let worker: WorkerServices;
let codeId: string;
let east: string;

/** Every sorted set of the project's task indexes (lists, stats, expiry). */
async function indexKeys(): Promise<string[]> {
  const keys: string[] = [];
  const pattern = `${server.running.ctx.keys.prefix}{w:${server.projectId}}:*`;
  for await (const found of scanKeys(redis, pattern, 1000)) keys.push(...found);
  const types = await Promise.all(keys.map((key) => redis.type(key)));
  return keys.filter((_, i) => types[i] === 'zset');
}

async function indexesHolding(taskId: string): Promise<string[]> {
  const keys = await indexKeys();
  const scores = await Promise.all(keys.map((key) => redis.zscore(key, taskId)));
  return keys.filter((_, i) => scores[i] !== null);
}

beforeAll(async () => {
  worker = server.running.ctx.worker;
  codeId = await client.upload({ name: 'kept', image: 'ferrum-test/busybox' });
  east = await createCluster(server.http, 'east');
});

describe('task retention', () => {
  it('drops finished tasks with their logs and index entries, and keeps unfinished ones', async () => {
    const finished = [await client.queue('kept', 'a', { cluster: east }), await client.queue('kept', 'b')];
    const waiting = [await client.queue('kept', 'c', { cluster: east }), await client.queue('kept', 'd')];
    for (const id of [...finished, ...waiting])
      await worker.statuses.appendLog(server.projectId, id, Buffer.from(`output of ${id}\n`), 1024);
    for (const id of finished) expect((await server.http.post(client.path(`/tasks/${id}/cancel`))).status).toBe(200);

    const { keys } = worker;
    // Earlier versions also wrote every task to all-status list indexes: one written then still
    // leaves them at expiry.
    const older = await worker.taskStore.get(server.projectId, finished[1]!);
    for (const key of keys.anyStatusIndexes(server.projectId, older)) await redis.zadd(key, older.created_at, older.id);
    expect(await indexesHolding(older.id)).toHaveLength(5 + 4);
    const ttl = await redis.pttl(keys.task(server.projectId, finished[0]!));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(RETENTION_MS);
    expect(await redis.pttl(keys.taskLog(server.projectId, finished[0]!))).toBeGreaterThan(0);
    expect(await indexesHolding(finished[0]!)).not.toEqual([]);
    expect(await redis.pttl(keys.task(server.projectId, waiting[0]!))).toBe(-1);

    // The sweeper (every 100 ms) drops them once the retention has passed.
    await eventually(
      async () => (await redis.zcard(keys.expiringTasks(server.projectId))) === 0,
      RETENTION_MS + 5000,
      'tasks swept',
    );
    for (const id of finished) {
      expect((await server.http.get(client.path(`/tasks/${id}`))).status).toBe(404);
      expect(await redis.exists(keys.taskLog(server.projectId, id))).toBe(0);
      expect(await indexesHolding(id)).toEqual([]);
    }
    for (const id of waiting) {
      expect((await client.task(id)).status).toBe('queued');
      expect(await client.log(id)).toBe(`output of ${id}\n`);
      // by status: all tasks, by code, by cluster, by code and cluster; and the stats index
      expect(await indexesHolding(id)).toHaveLength(5);
    }

    const listed = await server.http.get(client.path('/tasks?per_page=100'));
    expect(listed.body.tasks.map((task: { id: string }) => task.id).sort()).toEqual([...waiting].sort());
    expect((await server.http.get(client.path(`/tasks?cancelled=1&cluster=${east}`))).body.tasks).toEqual([]);
    const stats = await server.http.get(client.path(`/codes/${codeId}/stats`));
    expect(stats.body).toMatchObject({ queued: 2, cancelled: 0 });
  });
});

describe('retention settings', () => {
  it('reads FERRUM_TASK_RETENTION_DAYS, 30 days by default', () => {
    expect(loadConfig({}).worker.taskRetentionMs).toBe(30 * 24 * 3600 * 1000);
    expect(loadConfig({ FERRUM_TASK_RETENTION_DAYS: '7' }).worker.taskRetentionMs).toBe(7 * 24 * 3600 * 1000);
    expect(() => loadConfig({ FERRUM_TASK_RETENTION_DAYS: 'week' })).toThrow(
      /FERRUM_TASK_RETENTION_DAYS must be a non-negative integer/,
    );
  });

  it('honours the millisecond override only in test mode', () => {
    expect(() => loadConfig({ FERRUM_TEST_TASK_RETENTION_MS: '5' })).toThrow(
      /only with NODE_ENV=test or FERRUM_TEST_MODE=1/,
    );
    expect(loadConfig({ FERRUM_TEST_MODE: '1', FERRUM_TEST_TASK_RETENTION_MS: '5' }).worker.taskRetentionMs).toBe(5);
  });
});
