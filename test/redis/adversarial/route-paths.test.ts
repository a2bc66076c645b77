import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { useHardenedServer } from '../../helpers/adversarial/hardened-server.js';
import { scaled } from '../../helpers/pace.js';

// Dot segments are resolved by clients and proxies before a request arrives: a route made with
// them could never be called by its own path, and would shadow another one in listings.

const server = useHardenedServer();
const tenant = useTenant(server, 'route-paths');
const app = `paths-${process.pid}`;

beforeAll(async () => {
  expect((await tenant.http.post('/v1/apps', { app: { name: app, project_id: tenant.projectId } })).status).toBe(200);
}, scaled(60_000));

describe('route paths with dot segments', () => {
  it.each(['/a/../b', '/..', '/a/..', '/.', '/a/./b'])('refuses %s at create (400)', async (path) => {
    const created = await tenant.http.post(`/v1/apps/${app}/routes`, { route: { path, image: 'busybox' } });
    expect(created.status, created.text).toBe(400);
    expect(created.body.error.message).toBe('route path may not have "." or ".." segments');
  });

  it('still takes dots inside a segment', async () => {
    const created = await tenant.http.post(`/v1/apps/${app}/routes`, {
      route: { path: '/v1..2/.well', image: 'busybox' },
    });
    expect(created.status, created.text).toBe(200);
  });
});
