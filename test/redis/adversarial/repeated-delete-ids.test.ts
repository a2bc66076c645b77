import { describe, expect, it } from 'vitest';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { useTestServer } from '../../helpers/test-file.js';

// A batch delete that names a message twice gives its bytes back once: otherwise the queue's
// count of body bytes (queue_bytes, and the project's stored_bytes over it) goes below what it
// holds, and the tenant stores past its quota.
const QUEUE_BYTES = 10_000;
const BODY = 'x'.repeat(2000);
const server = useTestServer({ FERRUM_PROJECT_MAX_QUEUE_BYTES: String(QUEUE_BYTES) });
const tenant = useTenant(server, 'repeats');

const bodies = (count: number, body = BODY) => Array.from({ length: count }, () => ({ body }));

/** The queue at `base` (v3 or v1) takes exactly what is left of queue_bytes, and not a byte more. */
async function expectFullAfter(base: string, leftBytes: number): Promise<void> {
  const filled = await tenant.http.post(`${base}/messages`, { messages: bodies(leftBytes / BODY.length) });
  expect(filled.status, filled.text).toBeLessThan(300);
  const past = await tenant.http.post(`${base}/messages`, { messages: bodies(1, 'y') });
  expect(past.status, past.text).toBe(413);
  expect(past.body.msg).toContain('queue_bytes');
}

describe('a batch delete naming a message twice', () => {
  it('v3: deletes it once and gives its bytes back once', async () => {
    const base = `/3/projects/${tenant.projectId}/queues/twice`;
    const posted = await tenant.http.post(`${base}/messages`, { messages: bodies(4) });
    expect(posted.status).toBe(201);
    const [first, second] = posted.body.ids as string[];
    const ids = [first, first, second, second].map((id) => ({ id }));
    const deleted = await tenant.http.delete(`${base}/messages`, { ids });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.msg).toBe('Deleted');
    expect((await tenant.http.get(base)).body.queue.size).toBe(2);
    await expectFullAfter(base, QUEUE_BYTES - 2 * BODY.length);
  });

  it('v3: a repeat under the same reservation is one delete too', async () => {
    const base = `/3/projects/${tenant.projectId}/queues/twice-reserved`;
    expect((await tenant.http.post(`${base}/messages`, { messages: bodies(2) })).status).toBe(201);
    const reserved = await tenant.http.post(`${base}/reservations`, { n: 1 });
    const { id, reservation_id } = reserved.body.messages[0];
    const ids = [
      { id, reservation_id },
      { id, reservation_id },
    ];
    expect((await tenant.http.delete(`${base}/messages`, { ids })).status).toBe(200);
    expect((await tenant.http.get(base)).body.queue.size).toBe(1);
    await expectFullAfter(base, QUEUE_BYTES - BODY.length);
  });

  it('v1: deletes it once and gives its bytes back once', async () => {
    const base = `/1/projects/${tenant.projectId}/queues/twice-v1`;
    const posted = await tenant.http.post(`${base}/messages`, { messages: bodies(3) });
    expect(posted.status, posted.text).toBe(201);
    const [first] = posted.body.ids as string[];
    const deleted = await tenant.http.delete(`${base}/messages`, { ids: [first, first, first] });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await tenant.http.get(base)).body.size).toBe(2);
    await expectFullAfter(base, QUEUE_BYTES - 2 * BODY.length);
  });
});
