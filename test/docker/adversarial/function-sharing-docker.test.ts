import Docker from 'dockerode';
import { beforeAll, describe, expect, it } from 'vitest';
import { startController } from '../../../controller/main.js';
import { HOT_LABELS } from '../../../runner/functions/hot-function-pool.js';
import { FunctionsClient } from '../../helpers/functions.js';
import { HttpClient } from '../../helpers/http.js';
import { createUserWithToken } from '../../helpers/identity.js';
import { useStarted } from '../../helpers/read-through.js';
import { useTestServer } from '../../helpers/test-file.js';
import { FAST_WORKER_ENV } from '../../helpers/worker.js';
import { useRunner } from '../../helpers/worker-test-file.js';
import { newTenant, type Tenant } from '../../helpers/adversarial/tenant-data.js';
import { eventually } from '../../helpers/eventually.js';
import { scaled } from '../../helpers/pace.js';

// A hostile tenant shares the functions runners with a victim: its flood of slow calls, its
// huge answers and its hot containers must not cost the victim its calls (nor the controller its
// pub/sub notices), and what it deletes stops.
const MIB = 1024 * 1024;
const ENV = {
  ...FAST_WORKER_ENV,
  FERRUM_FUNCTIONS_RUNNER_SLOTS: '4',
  // Long enough that the hostile's own queued calls (2 at a time, each a cold start: three
  // rounds for its six big answers) are taken on a busy machine, so scaled with it: the refusals
  // checked are of answers, not of waits ("No runner took the call in time", 504).
  FERRUM_FUNCTIONS_QUEUE_WAIT_MS: String(scaled(30_000)),
  FERRUM_FUNCTIONS_GRACE_MS: '5000',
  FERRUM_FUNCTIONS_MAX_ANSWER_BYTES: String(2 * MIB),
  FERRUM_FUNCTIONS_PROJECT_HOT_CONTAINERS: '2',
  FERRUM_TOKEN_CACHE_MS: '60000',
};
const HOSTILE_APP = `hostile${process.pid}`;
const VICTIM_APP = `victim${process.pid}`;

const docker = new Docker();
const server = useTestServer(ENV);
/** A second controller on the same Redis. */
const second = useStarted(
  'the second controller',
  () => startController({ ...server.config, port: 0 }),
  (it) => it.stop(),
);
const runner = useRunner(server, ENV);
let hostile: Tenant;
let victim: Tenant;
let hostileFn: FunctionsClient;
let victimFn: FunctionsClient;

beforeAll(async () => {
  hostile = await newTenant(server, 'hostile');
  victim = await newTenant(server, 'victim');
  hostileFn = new FunctionsClient(hostile.http);
  victimFn = new FunctionsClient(victim.http);
  await victimFn.route(VICTIM_APP, { path: '/echo', image: 'ferrum-test/fn-cold-echo', timeout: 20 });
}, scaled(60_000));

/** The same tenant's functions calls through the second controller. */
const onSecond = (tenant: Tenant) => new FunctionsClient(new HttpClient(second.url, tenant.token));

function containersOf(app: string, path: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({
    all: true,
    filters: { label: [`${HOT_LABELS.function}=${app}${path}`, `ferrum.runner=${runner.id}`] },
  });
}

async function expectVictimAnswered(fn: FunctionsClient, body: string): Promise<void> {
  const answer = await fn.call('POST', `${VICTIM_APP}/echo`, body);
  expect(answer.status, answer.text).toBe(200);
  expect(answer.text).toBe(body);
}

describe('an answer larger than the limit', () => {
  it(
    "is refused with 502 naming the limit, while the victim's calls on the same controller are answered",
    async () => {
      await hostileFn.route(HOSTILE_APP, { path: '/big', image: 'ferrum-test/fn-cold-echo', timeout: 20 });
      // Six 5 MiB answers at once are past Redis's 32 MB pub/sub buffer limit: sent as replies,
      // they would make Redis close the controller's subscriber connection.
      const big = (fn: FunctionsClient, i: number) =>
        fn.call('POST', `${HOSTILE_APP}/big`, Buffer.alloc(5 * MIB, String.fromCharCode(97 + i)));
      const hostileOnSecond = onSecond(hostile);
      const huge = Promise.all(Array.from({ length: 6 }, (_, i) => big(i % 2 ? hostileFn : hostileOnSecond, i)));
      let settled = false;
      void huge.finally(() => (settled = true));
      const victimOnSecond = onSecond(victim);
      for (let i = 0; i < 6 || !settled; i++) await expectVictimAnswered(victimOnSecond, `victim call ${i}`);
      for (const refused of await huge) {
        expect(refused.status, refused.text.slice(0, 200)).toBe(502);
        expect(refused.body.error.message).toContain(`more than the limit of ${2 * MIB} bytes`);
      }
    },
    scaled(90_000),
  );

  it('lets answers under the limit through whole, however they travel', async () => {
    const body = Buffer.alloc(MIB + 7, 'z').toString();
    await expectVictimAnswered(onSecond(victim), body);
    await expectVictimAnswered(victimFn, 'small');
  });

  it("leaves the controller's notices working: a revoked token is refused there at once", async () => {
    const user = await createUserWithToken(server.http);
    const onSecondController = new HttpClient(second.url, user.token);
    expect((await onSecondController.get('/1/tokens')).status).toBe(200); // cached there for 60 s
    expect((await user.http.delete(`/1/tokens/${user.tokenId}`)).status).toBe(200);
    await eventually(
      async () => (await onSecondController.get('/1/tokens')).status === 401,
      10_000,
      'the revoked token to be refused',
    );
  });
});

const HOT_ROUTE = { image: 'ferrum-test/fn-hot-http', format: 'http', idle_timeout: 3600, timeout: 20 };

/** A hot route of `tenant` with one container warm; then `stop` must stop that container at once. */
async function expectHotContainerStopped(
  tenant: Tenant,
  app: string,
  stop: () => Promise<{ status: number; text: string }>,
) {
  const fn = new FunctionsClient(tenant.http);
  await fn.route(app, { ...HOT_ROUTE, path: '/hot' });
  const answer = await fn.call('POST', `${app}/hot`, 'ping');
  expect(answer.status, answer.text).toBe(200);
  expect(await containersOf(app, '/hot')).toHaveLength(1);
  const stopped = await stop();
  expect(stopped.status, stopped.text).toBe(200);
  await eventually(async () => (await containersOf(app, '/hot')).length === 0, 15_000, 'the hot container to stop');
}

describe('hot containers', () => {
  it(
    'of a deleted route stop at once',
    async () => {
      await expectHotContainerStopped(hostile, HOSTILE_APP, () =>
        hostile.http.delete(`/v1/apps/${HOSTILE_APP}/routes/hot`),
      );
    },
    scaled(60_000),
  );

  it(
    'of a suspended project stop at once',
    async () => {
      const tenant = await newTenant(server, 'suspended');
      await expectHotContainerStopped(tenant, `suspended${process.pid}`, () =>
        server.http.patch(`/1/projects/${tenant.projectId}`, { status: 'suspended' }),
      );
    },
    scaled(60_000),
  );

  it(
    'of one project are bounded: an idle one of another route makes room',
    async () => {
      const paths = ['/q1', '/q2', '/q3'];
      for (const path of paths) await hostileFn.route(HOSTILE_APP, { ...HOT_ROUTE, path });
      for (const path of paths) {
        const answer = await hostileFn.call('POST', `${HOSTILE_APP}${path}`, 'ping');
        expect(answer.status, answer.text).toBe(200);
      }
      const count = async () => (await Promise.all(paths.map((path) => containersOf(HOSTILE_APP, path)))).flat().length;
      await eventually(async () => (await count()) <= 2, 15_000, 'the project to keep at most 2 hot containers');
      expect(await containersOf(HOSTILE_APP, '/q3')).toHaveLength(1);
    },
    scaled(90_000),
  );
});

describe('a flood of slow calls', () => {
  it(
    "of sync calls from one tenant leaves the victim's calls answered in time",
    async () => {
      await hostileFn.route(HOSTILE_APP, { path: '/wait', image: 'ferrum-test/fn-echo', timeout: 20 });
      const floodStarted = Date.now();
      const flood = Array.from({ length: 8 }, async () => {
        const answer = await hostileFn.call('POST', `${HOSTILE_APP}/wait`, 'sleep=6');
        return { answer, ms: Date.now() - floodStarted };
      });
      // Sync calls are recorded once over: the flood's containers tell what it holds.
      const running = async () =>
        (
          await docker.listContainers({
            filters: { label: [`ferrum.runner=${runner.id}`], ancestor: ['ferrum-test/fn-echo'], status: ['running'] },
          })
        ).length;
      await eventually(async () => (await running()) >= 2, 15_000, 'the flood to hold the slots it may');
      for (let i = 0; i < 3; i++) await expectVictimAnswered(victimFn, `while sync-flooded ${i}`);
      expect(await running()).toBeLessThanOrEqual(2);
      // Only the flood's own calls wait past the queue wait. A runner taking one of them too late
      // answers it 504 then, before the controller's own bound for it (queue wait, timeout, grace).
      const callerBoundMs = Number(ENV.FERRUM_FUNCTIONS_QUEUE_WAIT_MS) + 20_000 + Number(ENV.FERRUM_FUNCTIONS_GRACE_MS);
      for (const { answer, ms } of await Promise.all(flood)) {
        expect([200, 504]).toContain(answer.status);
        expect(ms).toBeLessThan(callerBoundMs);
      }
    },
    scaled(90_000),
  );

  it(
    "from one tenant leaves the victim's sync and async calls answered in time",
    async () => {
      await hostileFn.route(HOSTILE_APP, { path: '/slow', image: 'ferrum-test/fn-echo', type: 'async', timeout: 60 });
      await victimFn.route(VICTIM_APP, { path: '/later', image: 'ferrum-test/fn-echo', type: 'async', timeout: 20 });
      const flood = await Promise.all(
        Array.from({ length: 8 }, () => hostileFn.call('POST', `${HOSTILE_APP}/slow`, 'sleep=10')),
      );
      for (const accepted of flood) expect(accepted.status).toBe(202);
      const running = async () => {
        const records = await Promise.all(flood.map((call) => hostileFn.record(HOSTILE_APP, call.body.call_id)));
        return records.filter((record) => record.status === 'running').length;
      };
      await eventually(async () => (await running()) >= 2, 15_000, 'the flood to hold the slots it may');
      // With one line for all, the victim's calls would wait behind the flood past the queue wait (504).
      for (let i = 0; i < 3; i++) await expectVictimAnswered(victimFn, `while flooded ${i}`);
      const later = await victimFn.call('POST', `${VICTIM_APP}/later`, 'async');
      expect(later.status).toBe(202);
      const done = await victimFn.waitFor(VICTIM_APP, later.body.call_id, ['success', 'error', 'timeout'], 9000);
      expect(done.status).toBe('success');
      expect(await running()).toBeLessThanOrEqual(2);
    },
    scaled(90_000),
  );
});
