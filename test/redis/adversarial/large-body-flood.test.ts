import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/test-file.js';
import { useTenant, type Tenant } from '../../helpers/adversarial/tenant-data.js';

// A tenant flooding the server with large bodies (megabyte cache values, full message batches)
// held the event loop every tenant shares: the victim's cache GET p99 passed 50 ms under the
// storage flood of bench:isolation. Each project's large bodies are now read a few at a time and
// at a bounded byte rate per controller; other projects' requests are not held behind them.
const RATE = 1024 * 1024; // bytes per second of one project's large bodies
const VALUE = 'x'.repeat(300 * 1024);
const WRITES = 8;

const server = useTestServer({
  FERRUM_LARGE_BODY_BYTES: String(64 * 1024),
  FERRUM_LARGE_BODY_BYTES_PER_SECOND: String(RATE),
});
const attacker = useTenant(server, 'flooder');
const victim = useTenant(server, 'victim');

function putLarge(tenant: Tenant, key: string) {
  return tenant.http.put(`/1/projects/${tenant.projectId}/caches/big/items/${key}`, { value: VALUE });
}

/** A put whose body is sent chunked (a stream, so no Content-Length); resolves with its status. */
async function putChunked(tenant: Tenant, key: string): Promise<number> {
  const text = JSON.stringify({ value: VALUE });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const bytes = new TextEncoder().encode(text);
      for (let at = 0; at < bytes.length; at += 16 * 1024) controller.enqueue(bytes.subarray(at, at + 16 * 1024));
      controller.close();
    },
  });
  const response = await fetch(`${server.url}/1/projects/${tenant.projectId}/caches/big/items/${key}`, {
    method: 'PUT',
    headers: { authorization: `OAuth ${tenant.token}`, 'content-type': 'application/json' },
    body,
    duplex: 'half',
  } as RequestInit);
  await response.arrayBuffer();
  return response.status;
}

describe('a flood of large bodies from one project', () => {
  it('is paced to its byte rate, while another project is served at once, large bodies included', async () => {
    const started = Date.now();
    const flood = Array.from({ length: WRITES }, (_, i) => putLarge(attacker, `k${i}`).then(() => Date.now()));
    // The victim's small and large requests are its own: none waits for the attacker's bytes.
    const victimPut = await putLarge(victim, 'mine');
    expect(victimPut.status).toBe(200);
    const victimGet = await victim.http.get(`/1/projects/${victim.projectId}/caches/big/items/mine`);
    expect(victimGet.status).toBe(200);
    const victimDone = Date.now();
    const floodDone = Math.max(...(await Promise.all(flood)));
    // Pacing gives a lower bound whatever the machine's load: WRITES bodies at RATE, less the
    // first one's free burst.
    const paced = ((WRITES - 1) * VALUE.length * 1000) / RATE;
    expect(floodDone - started).toBeGreaterThanOrEqual(paced * 0.9);
    expect(victimDone).toBeLessThan(floodDone);
    // Nothing of the flood was refused or lost.
    for (let i = 0; i < WRITES; i++) {
      const item = await attacker.http.get(`/1/projects/${attacker.projectId}/caches/big/items/k${i}`);
      expect(item.status).toBe(200);
    }
  });

  it('counts chunked bodies (no Content-Length) like any other', async () => {
    // Sent chunked, the same flood used to pass the gate in 60 ms.
    const started = Date.now();
    const statuses = await Promise.all(
      Array.from({ length: WRITES }, (_, i) => putChunked(attacker, `c${i}`).then((status) => status)),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
    const paced = ((WRITES - 1) * VALUE.length * 1000) / RATE;
    expect(Date.now() - started).toBeGreaterThanOrEqual(paced * 0.9);
  });

  it('a client that gives up while it waits frees its place', async () => {
    const controller = new AbortController();
    const url = `${server.url}/1/projects/${attacker.projectId}/caches/big/items/gone`;
    const waiting = Array.from({ length: 4 }, () =>
      fetch(url, {
        method: 'PUT',
        signal: controller.signal,
        headers: { authorization: `OAuth ${attacker.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ value: VALUE }),
      }).catch(() => null),
    );
    controller.abort();
    await Promise.all(waiting);
    // The project's next large body is served: the aborted ones hold no slot.
    const after = await putLarge(attacker, 'after');
    expect(after.status).toBe(200);
  });
});
