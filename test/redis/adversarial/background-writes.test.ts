import { afterEach, expect, it } from 'vitest';
import { WRITES_IN_FLIGHT } from '../../../src/core/project-budget.js';
import { eventually } from '../../helpers/eventually.js';
import { useTestServer } from '../../helpers/test-file.js';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { copies, fanOutQueue, queueSize } from '../../helpers/adversarial/fan-out.js';
import { scaled } from '../../helpers/pace.js';

// The fairness rule of in-process writes (ProjectBudget.write, SECURITY.md invariant 13): one
// project's background writes hold at most WRITES_IN_FLIGHT slots, so Redis and the shared
// connection never hold another tenant's command behind a fan-out's worth of them; the victim's
// requests and its own push copies are answered while the hostile's writes are saturated, and
// every deferred copy is still written later.
const RATE = 100_000;
const BODY = 'f'.repeat(20_000);
const SINKS = 16;
const POSTS = 2;
const server = useTestServer({ FERRUM_LARGE_BODY_BYTES: '1024', FERRUM_LARGE_BODY_BYTES_PER_SECOND: String(RATE) });
const victim = useTenant(server, 'victim');
const hostile = useTenant(server, 'hostile');

let sampler: NodeJS.Timeout | undefined;
afterEach(() => clearInterval(sampler));

it(
  "answers a victim while one project's background writes are saturated, and writes every deferred copy later",
  async () => {
    const { budget } = server.running.ctx;
    const sinks = Array.from({ length: SINKS }, (_, i) => `sink${i}`);
    const hostileMessages = await fanOutQueue(hostile, 'fan', sinks);
    const victimMessages = await fanOutQueue(victim, 'mine', ['inbox']);
    expect((await victim.http.put(`/1/projects/${victim.projectId}/caches/c/items/k`, { value: 'v' })).status).toBe(
      200,
    );
    let most = 0;
    sampler = setInterval(() => (most = Math.max(most, budget.writesInFlight(hostile.projectId))), 1);
    for (let i = 0; i < POSTS; i++) {
      expect((await hostile.http.post(hostileMessages, { messages: [{ body: BODY }] })).status).toBe(201);
    }
    await eventually(() => budget.writesInFlight(hostile.projectId) === WRITES_IN_FLIGHT, 10_000, 'saturated');
    // Saturated: the victim's request and its own in-process copy go through meanwhile.
    const read = await victim.http.get(`/1/projects/${victim.projectId}/caches/c/items/k`);
    expect(read.status, read.text).toBe(200);
    expect((await victim.http.post(victimMessages, { messages: [{ body: 'on time' }] })).status).toBe(201);
    await eventually(async () => (await queueSize(victim, 'inbox')) === 1, 10_000, "the victim's copy");
    expect(await copies(hostile, sinks)).toBeLessThan(SINKS * POSTS);
    // Deferred, not lost: every copy is written, never more than the bound at once.
    await eventually(async () => (await copies(hostile, sinks)) === SINKS * POSTS, 60_000, "the hostile's copies");
    expect(most).toBe(WRITES_IN_FLIGHT);
    expect(budget.writesInFlight(hostile.projectId)).toBe(0);
  },
  scaled(120_000),
);
