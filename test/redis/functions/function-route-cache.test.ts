import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectLifecycle } from '../../../src/auth/project-lifecycle.js';
import { EventBus } from '../../../src/core/bus.js';
import { loadConfig } from '../../../src/core/config.js';
import { KeySpace } from '../../../src/core/redis.js';
import { RouteCache } from '../../../src/functions/routes/route-cache.js';
import { openFunctionStores, type FunctionStores } from '../../../src/functions/services.js';
import type { Route } from '../../../src/functions/types.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestRedis } from '../../helpers/redis.js';

let redis: Awaited<ReturnType<typeof startTestRedis>>;
const connections: Redis[] = [];
const stops: (() => Promise<void>)[] = [];

/** One controller's view: its own connections, stores, bus and route cache. */
async function controller(): Promise<{ stores: FunctionStores; cache: RouteCache; lifecycle: ProjectLifecycle }> {
  const connect = () => {
    const connection = new Redis(redis.url);
    connections.push(connection);
    return connection;
  };
  const commands = connect();
  const keys = new KeySpace('route-cache-test:');
  const stores = openFunctionStores(loadConfig({}), commands, keys);
  const cache = new RouteCache(stores.routes, stores.notices, 60_000);
  stops.push(await cache.start(new EventBus(connect(), commands)));
  return { stores, cache, lifecycle: new ProjectLifecycle(commands, keys, stores.notices) };
}

function routeOf(appName: string, path: string, image: string): Route {
  return {
    appName,
    path,
    image,
    memory: 128,
    type: 'sync',
    format: 'default',
    timeout: 30,
    idleTimeout: 30,
    maxConcurrency: 1,
    headers: {},
    config: { GREETING: 'hello' },
    secret: null,
    createdAt: Date.now(),
    updatedAt: Date.now(),
  };
}

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  for (const stop of stops) await stop();
  for (const connection of connections) connection.disconnect();
  await redis?.stop();
});

describe('the route cache of calls', () => {
  it('serves a route from memory until it changes here (at once) or in another controller (by pub/sub)', async () => {
    const here = await controller();
    const there = await controller();
    expect(await here.stores.routes.create('p1', routeOf('cached', '/fn', 'img:1'))).toBe('created');

    const first = await here.cache.load('cached', '/fn');
    expect(first.route?.image).toBe('img:1');
    expect(await here.cache.load('cached', '/fn'), 'the same object, from memory').toBe(first);

    await here.stores.routes.update('cached', '/fn', { image: 'img:2' });
    expect((await here.cache.load('cached', '/fn')).route?.image, 'changed in this process').toBe('img:2');

    expect((await there.cache.load('cached', '/fn')).route?.image).toBe('img:2');
    await here.stores.apps.updateConfig('cached', { GREETING: 'hi' });
    await eventually(
      async () => (await there.cache.load('cached', '/fn')).app?.config.GREETING === 'hi',
      5000,
      'the other controller to read the changed app config',
    );

    expect(await here.stores.routes.delete('cached', '/fn')).toBe(true);
    expect((await here.cache.load('cached', '/fn')).route).toBeNull();
    await eventually(
      async () => (await there.cache.load('cached', '/fn')).route === null,
      5000,
      'the other controller to forget the deleted route',
    );
  });

  it('knows at once here, and soon in another controller, that a project was suspended or resumed', async () => {
    const here = await controller();
    const there = await controller();
    await here.stores.apps.create('held', 'p2', {});
    await here.stores.routes.create('p2', routeOf('held', '/fn', 'img:1'));
    expect((await here.cache.load('held', '/fn')).suspended).toBe(false);
    expect((await there.cache.load('held', '/fn')).suspended).toBe(false);

    await here.lifecycle.setSuspended('p2', true);
    expect((await here.cache.load('held', '/fn')).suspended).toBe(true);
    await eventually(async () => (await there.cache.load('held', '/fn')).suspended, 5000, 'the other controller');

    await there.lifecycle.setSuspended('p2', false);
    expect((await there.cache.load('held', '/fn')).suspended).toBe(false);
    await eventually(async () => !(await here.cache.load('held', '/fn')).suspended, 5000, 'the first controller');
  });

  it('keeps no misses: a route created after a call for it failed is found at once', async () => {
    const { stores, cache } = await controller();
    expect((await cache.load('later', '/fn')).app).toBeNull();
    await stores.routes.create('p1', routeOf('later', '/fn', 'img:1'));
    expect((await cache.load('later', '/fn')).route?.image).toBe('img:1');
  });
});
