import { describe, expect, it } from 'vitest';
import { FunctionsClient } from '../../helpers/functions.js';
import { useHardenedServer } from '../../helpers/adversarial/hardened-server.js';
import { useTenant, type Tenant } from '../../helpers/adversarial/tenant-data.js';

// What `ferrum functions calls list|log` reads (`/v1/apps/{app}/calls`, `…/calls/{id}`,
// `…/calls/{id}/log`): a call id is looked up only under the app named, and only in an app the
// token may see (CallRecords), so another project's calls cannot be read by id or by listing.
const server = useHardenedServer();
const victim = useTenant(server, 'calls-victim');
const attacker = useTenant(server, 'calls-attacker');
const victimApp = `calls-victim-${process.pid}`;
const attackerApp = `calls-attacker-${process.pid}`;

async function appWithCall(tenant: Tenant, app: string): Promise<string> {
  const created = await tenant.http.post('/v1/apps', { app: { name: app, project_id: tenant.projectId } });
  expect(created.status, created.text).toBe(200);
  const fn = new FunctionsClient(tenant.http);
  await fn.route(app, { path: '/job', image: 'ferrum-test/busybox', type: 'async' });
  // Async calls are recorded at once, whether or not a runner takes them.
  const called = await fn.call('POST', `${app}/job`, 'secret-payload');
  expect(called.status, called.text).toBe(202);
  return called.body.call_id as string;
}

describe("another project's call ids", () => {
  it('are refused under its app and under one of their own; listings show only their own', async () => {
    const theirs = await appWithCall(victim, victimApp);
    const mine = await appWithCall(attacker, attackerApp);
    for (const path of [
      `/v1/apps/${victimApp}/calls`,
      `/v1/apps/${victimApp}/calls/${theirs}`,
      `/v1/apps/${victimApp}/calls/${theirs}/log`,
      `/v1/apps/${attackerApp}/calls/${theirs}`,
      `/v1/apps/${attackerApp}/calls/${theirs}/log`,
    ]) {
      const answer = await attacker.http.get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error.message, path).toBeTruthy();
      expect(answer.text).not.toContain('secret-payload');
    }
    const listed = await attacker.http.get(`/v1/apps/${attackerApp}/calls`);
    expect(listed.body.calls.map((call: { id: string }) => call.id)).toEqual([mine]);
    expect((await victim.http.get(`/v1/apps/${victimApp}/calls/${theirs}`)).status).toBe(200);
  });
});

describe('a call listing page', () => {
  it('past any real page is refused with 400 naming it (page=1e308 passed as an integer and answered 500)', async () => {
    const app = `calls-paged-${process.pid}`;
    await appWithCall(attacker, app);
    const refused = await attacker.http.get(`/v1/apps/${app}/calls?page=1e%2B308`);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.text).toContain('page');
    const far = await attacker.http.get(`/v1/apps/${app}/calls?page=1000000`);
    expect(far.status, far.text).toBe(200);
    expect(far.body.calls).toEqual([]);
  });
});
