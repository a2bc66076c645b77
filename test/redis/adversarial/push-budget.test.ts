import { expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { useTestServer } from '../../helpers/test-file.js';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { copies, fanOutQueue, queueSize } from '../../helpers/adversarial/fan-out.js';
import { scaled } from '../../helpers/pace.js';

// Every push hop spends its project's byte rate, the one its large request bodies spend
// (FERRUM_LARGE_BODY_BYTES_PER_SECOND): a fan-out past the rate is spread out in time, and
// another project's deliveries are not held behind it.
const RATE = 40_000;
const BODY = 'f'.repeat(20_000);
const SINKS = 8;
// A burst of max(FERRUM_LARGE_BODY_BYTES, a quarter second's bytes) = 10,000 bytes.
const server = useTestServer({ FERRUM_LARGE_BODY_BYTES: '1024', FERRUM_LARGE_BODY_BYTES_PER_SECOND: String(RATE) });
const victim = useTenant(server, 'victim');
const hostile = useTenant(server, 'hostile');

it(
  "spreads one project's fan-out over its byte rate, while another project's delivery goes out at once",
  async () => {
    const sinks = Array.from({ length: SINKS }, (_, i) => `sink${i}`);
    const hostileMessages = await fanOutQueue(hostile, 'fan', sinks);
    const victimMessages = await fanOutQueue(victim, 'mine', ['inbox']);
    const started = Date.now();
    expect((await hostile.http.post(hostileMessages, { messages: [{ body: BODY }] })).status).toBe(201);
    expect((await victim.http.post(victimMessages, { messages: [{ body: 'on time' }] })).status).toBe(201);
    // The victim's copy is there while the hostile's fan-out still waits for its rate.
    await eventually(async () => (await queueSize(victim, 'inbox')) === 1, 10_000, "the victim's copy");
    expect(await copies(hostile, sinks)).toBeLessThan(SINKS);
    await eventually(async () => (await copies(hostile, sinks)) === SINKS, 30_000, "the hostile's copies");
    // 8 hops of 20,000 bytes (and the post's own 20,000) at 40,000 bytes/s, less the burst: over 3.5 s.
    const spentMs = ((SINKS + 1) * BODY.length - 10_000) / (RATE / 1000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(spentMs - 500);
  },
  scaled(90_000),
);
