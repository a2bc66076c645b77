import { expect, it } from 'vitest';
import { isCluster, mastersOf } from '../../src/core/redis.js';
import { WorkerClient } from '../helpers/worker.js';
import { useTestServer } from '../helpers/test-file.js';

// Runs in the `cluster` lane (FERRUM_TEST_REDIS=cluster): the server's Redis is a 3-master Redis Cluster.

const server = useTestServer();

it('spreads queues, caches and tasks of 10 projects over every master', async () => {
  const { redis } = server.running.ctx;
  expect(isCluster(redis)).toBe(true);
  const projectIds: string[] = [];
  for (let p = 0; p < 10; p++) {
    const created = await server.http.post('/1/projects', { name: `spread-${p}` });
    expect(created.status, created.text).toBe(201);
    projectIds.push(created.body.id as string);
  }
  for (const projectId of projectIds) {
    const worker = new WorkerClient(server.http, projectId);
    await worker.upload({ name: 'job', image: 'ferrum-test/busybox', command: 'true' });
    for (let i = 0; i < 10; i++) {
      const posted = await server.http.post(`/3/projects/${projectId}/queues/q${i}/messages`, {
        messages: [{ body: `m${i}` }],
      });
      expect(posted.status, posted.text).toBe(201);
      const put = await server.http.put(`/1/projects/${projectId}/caches/c${i % 3}/items/k${i}`, { value: 'v' });
      expect(put.status, put.text).toBe(200);
    }
    const queued = await server.http.post(`/2/projects/${projectId}/tasks`, {
      tasks: Array.from({ length: 10 }, (_, i) => ({ code_name: 'job', payload: `t${i}`, cluster: 'default' })),
    });
    expect(queued.status, queued.text).toBe(200);
  }
  const masters = mastersOf(redis);
  expect(masters).toHaveLength(3);
  const counts = await Promise.all(masters.map((node) => node.dbsize()));
  const total = counts.reduce((sum, count) => sum + count, 0);
  console.log(`[key-spread] keys per master: ${counts.join(', ')} (total ${total})`);
  for (const count of counts) expect(count / total).toBeGreaterThanOrEqual(0.15);
});
