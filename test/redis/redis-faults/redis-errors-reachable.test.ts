import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { freeLoopbackPort } from '../../../src/core/free-port.js';
import { useRedis, useTestServer } from '../../helpers/test-file.js';

// Redis reachable (PING answers) but refusing commands: a read-only replica. /ready must say so,
// and writes must fail with a clear 503, not a 500. (A full Redis is no outage: redis-full.test.ts.)
describe('Redis reachable but refusing writes', () => {
  const server = useTestServer();
  const admin = useRedis(server);
  const item = () => `/1/projects/${server.projectId}/caches/c/items/k`;

  afterAll(async () => {
    await admin.call('REPLICAOF', 'NO', 'ONE').catch(() => undefined);
  });

  const readyStatus = async () => (await server.http.get('/ready')).status;

  /** Writes recover once Redis takes them again (200 on /ready, the cache PUT stored). */
  async function expectRecovered(): Promise<void> {
    await eventually(async () => (await readyStatus()) === 200, 5000, '/ready 200');
    const put = await server.http.put(item(), { value: 'v2' });
    expect(put.status).toBe(200);
    const got = await server.http.get(item());
    expect(got.body.value).toBe('v2');
  }

  /** /ready's answer once it is 503 (waited for: the fault reaches the server's check within seconds). */
  function readyRefuses() {
    return eventually(
      async () => {
        const response = await server.http.get('/ready');
        return response.status === 503 ? response : undefined;
      },
      5000,
      '/ready 503',
    );
  }

  /** A cache write while Redis refuses writes: 503 with Retry-After and a {"msg"}. */
  async function writeRefused() {
    const put = await server.http.put(item(), { value: 'v' });
    expect(put.status, put.text).toBe(503);
    expect(put.headers.get('retry-after')).toBe('1');
    expect(typeof put.body.msg).toBe('string');
    return put;
  }

  it('works before any fault', async () => {
    expect(await readyStatus()).toBe(200);
    expect((await server.http.put(item(), { value: 'v' })).status).toBe(200);
  });

  it('answers 503 on /ready and on writes while Redis is a read-only replica, then recovers', async () => {
    const closedPort = await freeLoopbackPort();
    await admin.call('REPLICAOF', '127.0.0.1', String(closedPort));
    try {
      const ready = await readyRefuses();
      expect(ready.body.msg).toMatch(/READONLY/);
      await writeRefused();
    } finally {
      await admin.call('REPLICAOF', 'NO', 'ONE');
    }
    await expectRecovered();
  });
});
