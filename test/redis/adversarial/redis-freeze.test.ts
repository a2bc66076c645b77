import { describe, expect, it } from 'vitest';
import { useTenant, useVictim, expectHealthyAndIntact } from '../../helpers/adversarial/tenant-data.js';
import { useTestServer } from '../../helpers/test-file.js';
import { postChunks } from '../../../src/mq/messages/script-io.js';

// A tenant sends requests meant to hold Redis for a long time. Timings are measured by
// `npm run bench:isolation`; here: the caps answer clearly and the big operations still work.
const CAP = 500;
const server = useTestServer({ FERRUM_MQ_MAX_POST_MESSAGES: String(CAP) });
const victim = useVictim(server);
const hostile = useTenant(server, 'hostile');

const messages = (count: number, body = 'x'.repeat(1000)) => Array.from({ length: count }, () => ({ body }));

describe('posting', () => {
  it('refuses more messages than the per-request cap, naming it (v3 and v1)', async () => {
    const v3 = await hostile.http.post(`/3/projects/${hostile.projectId}/queues/q/messages`, {
      messages: messages(CAP + 1, 'x'),
    });
    expect(v3.status).toBe(400);
    expect(v3.body.msg).toBe(`messages: at most ${CAP} messages per request, got ${CAP + 1}`);
    const v1 = await hostile.http.post(`/1/projects/${hostile.projectId}/queues/q/messages`, {
      messages: messages(CAP + 1, 'x'),
    });
    expect(v1.status).toBe(400);
  });

  it('writes a maximal batch in order, chunk by chunk', async () => {
    const base = `/3/projects/${hostile.projectId}/queues/ordered`;
    const bodies = Array.from({ length: CAP }, (_, i) => ({ body: `m${i}-${'y'.repeat(2000)}` }));
    const posted = await hostile.http.post(`${base}/messages`, { messages: bodies });
    expect(posted.status).toBe(201);
    expect(posted.body.ids).toHaveLength(CAP);
    expect((await hostile.http.get(base)).body.queue.size).toBe(CAP);
    const first = await hostile.http.get(`${base}/messages?n=100`);
    expect(first.body.messages.map((m: { body: string }) => m.body.split('-')[0])).toEqual(
      Array.from({ length: 100 }, (_, i) => `m${i}`),
    );
  });

  it('splits posts into chunks bounded by count and bytes', () => {
    const row = (body: string): [string, string, number, string, number, number] => ['id', body, 0, '', 0, 0];
    expect(postChunks(Array.from({ length: 250 }, () => row('a'))).map((c) => c.length)).toEqual([100, 100, 50]);
    const big = postChunks(Array.from({ length: 10 }, () => row('b'.repeat(100_000))));
    expect(big.every((chunk) => chunk.length <= 3)).toBe(true);
    expect(postChunks([row('c'.repeat(1_000_000))])).toHaveLength(1);
  });
});

describe('whole-collection operations on huge data', () => {
  it('clears and deletes a big queue and a big cache without harming the neighbour', async () => {
    const base = `/3/projects/${hostile.projectId}/queues/huge`;
    for (let i = 0; i < 20; i++) {
      const posted = await hostile.http.post(`${base}/messages`, { messages: messages(CAP, 'z') });
      expect(posted.status).toBe(201);
    }
    expect((await hostile.http.get(base)).body.queue.size).toBe(20 * CAP);
    expect((await hostile.http.delete(`${base}/messages`, {})).status).toBe(200);
    expect((await hostile.http.get(base)).body.queue.size).toBe(0);
    expect((await hostile.http.delete(base)).status).toBe(200);

    const cache = `/1/projects/${hostile.projectId}/caches/big`;
    await Promise.all(Array.from({ length: 300 }, (_, i) => hostile.http.put(`${cache}/items/k${i}`, { value: i })));
    expect((await hostile.http.post(`${cache}/clear`)).status).toBe(200);
    expect((await hostile.http.get(`${cache}/items/k1`)).status).toBe(404);
    await hostile.http.put(`${cache}/items/again`, { value: 1 });
    expect((await hostile.http.delete(cache)).status).toBe(200);
    await expectHealthyAndIntact(server, victim);
  });

  it('refuses a stranger (no token) and another tenant before any work', async () => {
    const path = `/3/projects/${victim.projectId}/queues/q/messages`;
    expect((await hostile.http.post(path, { messages: messages(CAP, 'x') })).status).toBe(403);
    expect((await hostile.http.post(path, { messages: messages(1) }, { token: null })).status).toBe(401);
    expect((await hostile.http.post(`/1/projects/${victim.projectId}/caches/mine/clear`)).status).toBe(403);
    await expectHealthyAndIntact(server, victim);
  });
});
