import { afterAll, beforeAll, expect, it } from 'vitest';
import { routeListOf, type RouteEntry } from '../../../controller/http/route-list.js';
import { createTenant, expectHealthy, type Tenant } from '../adversarial/hardened-server.js';
import { scaled } from '../pace.js';
import type { TestServer } from '../server.js';
import { buildWorld, expectControlTenantServed, startFuzzServer, worldIntact, type FuzzWorld } from './fuzz-world.js';
import { FUZZ_SEED, fuzzRoute, type FuzzTarget } from './route-fuzz.js';
import type { Caller } from './route-requests.js';

/**
 * The routes each generated-input file covers, by URL. A route no group names falls in
 * `identity-and-rest`, so a new route is covered the moment it is registered.
 */
const GROUPS = {
  cache: (url: string) => url.startsWith('/1/projects/:project_id/caches'),
  'mq-v3': (url: string) => url.startsWith('/3/'),
  'mq-v1': (url: string) => url.startsWith('/1/projects/:project_id/queues'),
  worker: (url: string) => url.startsWith('/2/') || url.startsWith('/runner/'),
  functions: (url: string) => url.startsWith('/v1/') || url.startsWith('/r/'),
};

export type RouteGroup = keyof typeof GROUPS | 'identity-and-rest';

export function groupOf(url: string): RouteGroup {
  const named = (Object.keys(GROUPS) as (keyof typeof GROUPS)[]).find((group) => GROUPS[group](url));
  return named ?? 'identity-and-rest';
}

/** Mostly the tenant (or, on the runner API, its cluster's runner); a stranger without a token or with a forged one for some runs. */
function callersOf(url: string): Caller[] {
  const own: Caller[] = url.startsWith('/runner/') ? ['runner', 'runner', 'runner', 'tenant'] : ['tenant'];
  return [...Array.from({ length: 8 }, (_, i) => own[i % own.length]!), 'none', 'forged'];
}

/**
 * The test of one group: every route of it gets generated requests (the world rebuilt when a
 * generated DELETE took the tenant's things away); then the server still serves a control tenant.
 */
export function fuzzRouteGroup(group: RouteGroup): void {
  let server: TestServer;
  let world: FuzzWorld;
  let control: Tenant;
  let round = 0;

  beforeAll(async () => {
    server = await startFuzzServer();
    world = await buildWorld(server, `fuzz-${round}`);
    control = await createTenant(server, 'control');
  }, scaled(60_000));

  afterAll(async () => {
    await server?.stop();
  });

  it(
    `answers generated requests to every ${group} route with no 5xx, within the bound, with an error body on 4xx`,
    async () => {
      console.log(`generated requests: seed ${FUZZ_SEED} (FERRUM_FUZZ_SEED=${FUZZ_SEED} replays them)`);
      const routes = routeListOf(server.running.app).filter(
        (route) => groupOf(route.url) === group && chosen(`${String(route.method)} ${route.url}`),
      );
      expect(routes.length).toBeGreaterThan(0);
      const failures: string[] = [];
      for (const route of routes) {
        if (!(await worldIntact(world))) world = await buildWorld(server, `fuzz-${++round}`);
        try {
          await fuzzRoute(route, targetOf(server, world), poolsOf(route, world), callersOf(route.url));
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
      expect(failures, failures.join('\n\n')).toEqual([]);
    },
    scaled(300_000),
  );

  it('still serves a control tenant afterwards', async () => {
    await expectHealthy(server);
    await expectControlTenantServed(control);
  });
}

/** FERRUM_FUZZ_ONLY="<METHOD> <url pattern>" narrows a run to one route (to replay a failure quickly). */
function chosen(route: string): boolean {
  return !process.env.FERRUM_FUZZ_ONLY || route === process.env.FERRUM_FUZZ_ONLY;
}

function targetOf(server: TestServer, world: FuzzWorld): FuzzTarget {
  return {
    baseUrl: server.url,
    functionsUrl: `http://127.0.0.1:${server.running.functionsPort}`,
    tokens: {
      tenant: world.tenant.token,
      runner: world.runnerToken,
      none: null,
      forged: 'forged0000000000000000000000',
    },
  };
}

function poolsOf(route: RouteEntry, world: FuzzWorld) {
  return { params: route.url.startsWith('/r/') ? { ...world.params, ...world.callParams } : world.params };
}
