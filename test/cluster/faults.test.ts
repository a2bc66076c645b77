import { expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { boundFrom, scaled } from '../helpers/pace.js';
import { useTestServer } from '../helpers/test-file.js';

// Runs in the `cluster` lane: the whole Redis Cluster goes away under a controller and comes back.

const server = useTestServer();

it(
  'answers 503 with Retry-After at once while the cluster is down, and serves again when it is back',
  async () => {
    const cluster = server.redisCluster!;
    const item = `/1/projects/${server.projectId}/caches/faults/items/k`;
    expect((await server.http.put(item, { value: 'before' })).status).toBe(200);

    await cluster.killAll();
    const refused = await eventually(async () => {
      const response = await server.http.get(item);
      return response.status === 503 ? response : undefined;
    }, 10_000);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.msg).toMatch(/temporarily unavailable/);
    // Once refused, every request is refused fast: no request waits on the missing cluster.
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      expect((await server.http.get(item)).status).toBe(503);
      expect(performance.now() - started).toBeLessThan(scaled(1500));
    }
    expect((await server.http.get('/ready')).status).toBe(503);

    await cluster.restartAll();
    // The nodes come back empty (no persistence in tests) but with their slots: writes work again,
    // within a bound from how long this cluster took to start on this machine now.
    const backBound = boundFrom(cluster.startedInMs, { floorMs: 30_000 });
    await eventually(async () => (await server.http.put(item, { value: 'after' })).status === 200, backBound, 'writes');
    expect((await server.http.get(item)).body.value).toBe('after');
    await eventually(async () => (await server.http.get('/ready')).status === 200, 10_000, '/ready');
  },
  scaled(120_000),
);
