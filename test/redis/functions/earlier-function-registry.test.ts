import { expect, it } from 'vitest';
import { moveEarlierApps } from '../../../src/functions/apps/earlier-registry.js';
import { useRedis, useTestServer } from '../../helpers/test-file.js';

// Apps and routes an earlier version kept under {fn} move to their apps' own hash tags.
const server = useTestServer();
const redis = useRedis(server);

/** Moves a key back where an earlier version kept it (as it would have written it). */
async function putBack(to: string, from: string): Promise<void> {
  const dumped = await redis.dumpBuffer(from);
  if (!dumped) return;
  await redis.restore(to, 0, dumped);
  await redis.del(from);
}

it('moves an app, its config and routes, and they keep working; a second pass moves nothing', async () => {
  const { keys } = server.running.ctx.functions;
  const app = `earlier-${Date.now()}`;
  const created = await server.http.post('/v1/apps', { app: { name: app, config: { A: '1' } } });
  expect(created.status, created.text).toBe(200);
  const route = await server.http.post(`/v1/apps/${app}/routes`, {
    route: { path: '/hello', image: 'ferrum-test/busybox', config: { B: '2' }, headers: { 'X-Hi': 'yes' } },
  });
  expect(route.status, route.text).toBe(200);
  const pairs: [string, string][] = [
    [keys.earlier.route(app, '/hello'), keys.route(app, '/hello')],
    [keys.earlier.routeConfig(app, '/hello'), keys.routeConfig(app, '/hello')],
    [keys.earlier.routeHeaders(app, '/hello'), keys.routeHeaders(app, '/hello')],
    [keys.earlier.routes(app), keys.routes(app)],
    [keys.earlier.appConfig(app), keys.appConfig(app)],
    [keys.earlier.app(app), keys.app(app)],
  ];
  for (const [earlier, now] of pairs) await putBack(earlier, now);
  expect((await server.http.get(`/v1/apps/${app}`)).status).toBe(404);

  expect(await moveEarlierApps(redis, keys)).toBe(1);
  for (const [earlier, now] of pairs) {
    expect(await redis.exists(earlier), earlier).toBe(0);
    expect(await redis.exists(now), now).toBe(1);
  }
  const read = await server.http.get(`/v1/apps/${app}/routes/hello`);
  expect(read.status, read.text).toBe(200);
  expect(read.body.route).toMatchObject({ path: '/hello', image: 'ferrum-test/busybox', config: { B: '2' } });
  expect((await server.http.get(`/v1/apps/${app}`)).body.app.config).toEqual({ A: '1' });
  expect(await moveEarlierApps(redis, keys)).toBe(0);
});
