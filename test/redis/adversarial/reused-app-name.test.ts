import { describe, expect, it } from 'vitest';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { useHardenedServer, type Tenant } from '../../helpers/adversarial/hardened-server.js';
import { FunctionsClient } from '../../helpers/functions.js';

// A tenant deletes an app; another takes its name and reads the calls (records, logs) the first
// one's callers made, by listing or by guessing the next call id.

const server = useHardenedServer();
const victim = useTenant(server, 'app-victim');
const attacker = useTenant(server, 'app-attacker');
const app = `reused-${process.pid}`;

/** Async calls are recorded at once, whether or not a runner takes them. */
async function asyncCalls(fn: FunctionsClient, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const called = await fn.call('POST', `${app}/job`, `secret-payload-${i}`);
    expect(called.status, called.text).toBe(202);
    ids.push(called.body.call_id as string);
  }
  return ids;
}

async function makeApp(tenant: Tenant): Promise<FunctionsClient> {
  const created = await tenant.http.post('/v1/apps', { app: { name: app, project_id: tenant.projectId } });
  expect(created.status, created.text).toBe(200);
  const fn = new FunctionsClient(tenant.http);
  await fn.route(app, { path: '/job', image: 'ferrum-test/busybox', type: 'async' });
  return fn;
}

describe('an app name taken again', () => {
  it("does not hand the earlier app's calls to the new one", async () => {
    const victimFn = await makeApp(victim);
    const victimCalls = await asyncCalls(victimFn, 3);
    expect((await victim.http.delete(`/v1/apps/${app}/routes/job`)).status).toBe(200);
    expect((await victim.http.delete(`/v1/apps/${app}`)).status).toBe(200);

    const attackerFn = await makeApp(attacker);
    const listed = await attacker.http.get(`/v1/apps/${app}/calls`);
    expect(listed.status).toBe(200);
    expect(listed.body.calls).toEqual([]);
    for (const id of victimCalls) {
      expect((await attacker.http.get(`/v1/apps/${app}/calls/${id}`)).status).toBe(404);
      expect((await attacker.http.get(`/v1/apps/${app}/calls/${id}/log`)).status).toBe(404);
    }
    const own = await asyncCalls(attackerFn, 1);
    const ownListed = await attacker.http.get(`/v1/apps/${app}/calls`);
    expect(ownListed.body.calls.map((call: { id: string }) => call.id)).toEqual(own);
  });

  it('call ids do not tell one another: no counter to count on', async () => {
    const ids = await asyncCalls(new FunctionsClient(attacker.http), 8);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/);
    const tails = ids.map((id) => parseInt(id.slice(-6), 16));
    for (let i = 1; i < tails.length; i++) expect(Math.abs(tails[i]! - tails[i - 1]!)).toBeGreaterThan(1);
    // The new ids are listed like the ones before them.
    const listed = await attacker.http.get(`/v1/apps/${app}/calls`);
    const order = listed.body.calls.map((call: { id: string }) => call.id);
    expect(order.slice(0, ids.length).sort()).toEqual([...ids].sort());
  });
});
