import { describe, expect, it } from 'vitest';
import { newRouteOf } from '../../../src/functions/routes/route-input.js';
import { useTestServer } from '../../helpers/test-file.js';
import { newTenant, type Tenant } from '../../helpers/adversarial/tenant-data.js';

// A project's hot containers (the max_concurrency of its http/json/http-stream routes added up)
// are reserved in the step that adds up the others (reserve-hot-containers.lua), so racing
// route saves cannot pass the hot_containers quota; deletions give the room back; and routes
// an earlier release wrote or deleted without the reservation hash are counted as they are.
const server = useTestServer();

async function tenantWithHotQuota(name: string, hot: number): Promise<Tenant> {
  const tenant = await newTenant(server, name);
  const set = await server.http.patch(`/1/projects/${tenant.projectId}`, {
    quotas: { hot_containers: hot, routes: 100 },
  });
  expect(set.status, set.text).toBe(200);
  return tenant;
}

function hotRoute(path: string, maxConcurrency = 1) {
  return { route: { path, image: 'busybox', format: 'http', max_concurrency: maxConcurrency } };
}

async function createHot(tenant: Tenant, app: string, path: string, maxConcurrency = 1) {
  return tenant.http.post(`/v1/apps/${app}/routes?project_id=${tenant.projectId}`, hotRoute(path, maxConcurrency));
}

function expectHotRefusal(answer: { status: number; body: any }) {
  expect(answer.status).toBe(403);
  expect(answer.body.error.message).toMatch(/hot_containers/);
}

describe('hot containers under racing saves', () => {
  it('30 concurrent hot route creations with room for 4 make exactly 4; the rest are 403 naming the quota', async () => {
    const tenant = await tenantWithHotQuota('hotrace', 4);
    const app = `hot${tenant.projectId.slice(-8)}`;
    expect((await createHot(tenant, app, '/first')).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => createHot(tenant, app, `/r${i}`)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3);
    for (const refused of answers.filter((answer) => answer.status !== 200)) expectHotRefusal(refused);
    expect((await tenant.http.get(`/v1/apps/${app}/routes`)).body.routes).toHaveLength(4);
  });

  it('30 concurrent updates raising max_concurrency: the quota holds; a delete, then the app delete, give room back', async () => {
    const tenant = await tenantWithHotQuota('hotup', 10);
    const app = `up${tenant.projectId.slice(-8)}`;
    const paths = Array.from({ length: 30 }, (_, i) => `/u${i}`);
    for (const path of paths)
      expect((await tenant.http.post(`/v1/apps/${app}/routes`, { route: { path, image: 'busybox' } })).status).toBe(
        200,
      );
    const answers = await Promise.all(
      paths.map((path) =>
        tenant.http.patch(`/v1/apps/${app}/routes${path}`, { route: { format: 'json', max_concurrency: 3 } }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3);
    for (const refused of answers.filter((answer) => answer.status !== 200)) expectHotRefusal(refused);
    const hot = (await tenant.http.get(`/v1/apps/${app}/routes?per_page=100`)).body.routes.filter(
      (route: any) => route.format === 'json',
    );
    expect(hot).toHaveLength(3);

    const other = `other${tenant.projectId.slice(-8)}`;
    expect((await createHot(tenant, other, '/one', 2)).status).toBe(403);
    expect((await tenant.http.delete(`/v1/apps/${app}/routes${hot[0].path}`)).status).toBe(200);
    expect((await createHot(tenant, other, '/one', 2)).status).toBe(200);
    expectHotRefusal(await createHot(tenant, other, '/two', 3));
    // The app goes once its routes are gone, and with it all it held.
    expect((await tenant.http.delete(`/v1/apps/${other}/routes/one`)).status).toBe(200);
    expect((await tenant.http.delete(`/v1/apps/${other}`)).status).toBe(200);
    expect((await createHot(tenant, other, '/two', 3)).status).toBe(200);
  });

  it('a save that fails after its reservation (route exists) gives it back', async () => {
    const tenant = await tenantWithHotQuota('hotfail', 3);
    const app = `fail${tenant.projectId.slice(-8)}`;
    expect((await createHot(tenant, app, '/a', 2)).status).toBe(200);
    const again = await createHot(tenant, app, '/a', 1);
    expect(again.status).toBe(409);
    expect((await createHot(tenant, app, '/b', 1)).status).toBe(200);
    expectHotRefusal(await createHot(tenant, app, '/c', 1));
  });
});

describe('beside a release that keeps no reservation hash', () => {
  it('routes it created are counted, and entries of routes it deleted are dropped', async () => {
    const tenant = await tenantWithHotQuota('hotold', 5);
    const app = `old${tenant.projectId.slice(-8)}`;
    const { functions } = server.running.ctx;
    // As f89fce9 creates a route: create-route.lua and the app indexes, no reservation.
    const settings = server.running.ctx.config.functions;
    const oldRoute = newRouteOf(app, '/old', { image: 'busybox', format: 'http', max_concurrency: 4 }, settings);
    expect(await functions.routes.create(tenant.projectId, oldRoute)).toBe('created');
    expectHotRefusal(await createHot(tenant, app, '/new', 2));
    expect((await createHot(tenant, app, '/new', 1)).status).toBe(200);

    const redis = server.openRedis();
    try {
      const hash = functions.keys.projectHotContainers(tenant.projectId);
      expect(await redis.hget(hash, `${app}/old`)).toBe('4:0');
      // As f89fce9 deletes a route: its keys go, the hash is left as it was.
      await redis.del(functions.keys.route(app, '/old'));
      await redis.zrem(functions.keys.routes(app), '/old');
      // An entry it never had a route for, reserved long ago (a save that died half way).
      await redis.hset(hash, `${app}/ghost`, '3:1');
      expect((await createHot(tenant, app, '/later', 4)).status).toBe(200);
      expect(await redis.hexists(hash, `${app}/old`)).toBe(0);
      expect(await redis.hexists(hash, `${app}/ghost`)).toBe(0);
    } finally {
      await redis.quit();
    }
  });
});
