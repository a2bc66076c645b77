import { describe, expect, it } from 'vitest';
import { ActivityHistory } from '../../../src/metrics/history.js';
import { createUserWithToken } from '../../helpers/identity.js';
import { scaled } from '../../helpers/pace.js';
import { useTestServer } from '../../helpers/test-file.js';

const server = useTestServer({ FERRUM_HISTORY_SAMPLE_MS: '200' });
const historyPath = () => `/1/projects/${server.projectId}/history`;

describe('activity history (dashboard charts)', () => {
  it('samples queue depth of every project, with the deepest queues', async () => {
    const mq = `/3/projects/${server.projectId}/queues`;
    await server.http.post(`${mq}/deep/messages`, { messages: [{ body: 'a' }, { body: 'b' }, { body: 'c' }] });
    await server.http.post(`${mq}/shallow/messages`, { messages: [{ body: 'a' }] });
    await expect
      .poll(async () => (await server.http.get(historyPath())).body.queue_depth.at(-1)?.total, {
        timeout: scaled(5000),
        interval: 100,
      })
      .toBe(4);
    const { body } = await server.http.get(historyPath());
    expect(body.sample_interval_seconds).toBe(0.2);
    expect(body.queue_depth.at(-1).queues).toEqual({ deep: 3, shallow: 1 });
    expect(Date.parse(body.queue_depth.at(-1).time)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('counts task outcomes per minute over the last hour', async () => {
    const history = new ActivityHistory(server.running.ctx.redis, server.running.ctx.keys);
    const now = Date.now();
    await history.recordTaskOutcome(server.projectId, 'complete', now);
    await history.recordTaskOutcome(server.projectId, 'complete', now);
    await history.recordTaskOutcome(server.projectId, 'error', now - 10 * 60_000);
    await history.recordTaskOutcome(server.projectId, 'timeout', now - 2 * 60 * 60_000); // too old to show
    const { body } = await server.http.get(historyPath());
    expect(body.task_outcomes).toHaveLength(60);
    const total = (key: string) =>
      body.task_outcomes.reduce((sum: number, b: Record<string, number>) => sum + b[key]!, 0);
    expect([total('complete'), total('error'), total('timeout'), total('cancelled')]).toEqual([2, 1, 0, 0]);
    expect(body.task_outcomes.at(-1).complete).toBe(2);
    expect(body.task_outcomes.at(-11).error).toBe(1);
  });

  it('is behind the project authentication', async () => {
    const stranger = await createUserWithToken(server.http);
    expect((await stranger.http.get(historyPath())).status).toBe(403);
    expect((await server.http.get(historyPath(), { token: null })).status).toBe(401);
    expect((await server.http.get('/1/projects/nope/history')).status).toBe(404);
  });
});
