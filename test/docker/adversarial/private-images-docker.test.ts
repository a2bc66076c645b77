import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeySpace } from '../../../src/core/redis.js';
import { PrivateImages } from '../../../src/worker/codes/images/private-images.js';
import { WorkerKeys } from '../../../src/worker/keys.js';
import { docker } from '../../helpers/image.js';
import { FAST_WORKER_ENV, WorkerClient } from '../../helpers/worker.js';
import { createTenant, expectHealthy, type Tenant } from '../../helpers/adversarial/hardened-server.js';
import { scaled } from '../../helpers/pace.js';
import { useHardenedServer } from '../../helpers/adversarial/hardened-test-file.js';
import { useRunner } from '../../helpers/worker-test-file.js';

// The victim runs a private image (pulled with its registry credentials); it stays on the
// engine. The attacker names the same image and hopes the runner uses the local copy.
//
// No registry is reachable here, so the victim's private pull is recorded as the runner records
// it after a pull with credentials (PrivateImages.recordPull), and the image is put on the
// engine by committing a local one (with a label of its own, so its id is its own) under a
// registry name that does not resolve. Any pull then fails, so an image that runs came from
// the engine's copy, and only by the access rules. The attacker also names it by its id, a
// prefix of that id, and `sha256:` and the id: the rule holds for the image, not the name.

const REGISTRY = 'registry.ferrum.invalid';
const IMAGE = `${REGISTRY}/victim/secret-${process.pid}`;
const ENV = { ...FAST_WORKER_ENV, FERRUM_WORKER_IMAGE_PROOF_MS: '600000' };

const server = useHardenedServer(ENV);
useRunner(server, ENV);
let victim: Tenant;
let attacker: Tenant;
let redis: Redis;
/** The victim's image's id on the engine ("sha256:…"). */
let imageId: string;

/** The shortest prefix (4 or more characters) of the image's id that no other image on the engine shares. */
async function uniquePrefix(): Promise<string> {
  const hex = imageId.slice('sha256:'.length);
  const others = (await docker('images', '-aq', '--no-trunc'))
    .split('\n')
    .map((id) => id.replace(/^sha256:/, ''))
    .filter((id) => id !== hex);
  for (let length = 4; ; length++) {
    const prefix = hex.slice(0, length);
    if (!others.some((other) => other.startsWith(prefix))) return prefix;
  }
}

/** The forms of the victim's image's reference that are not its name. */
async function idForms(): Promise<string[]> {
  return [
    imageId,
    imageId.slice('sha256:'.length),
    imageId.slice('sha256:'.length, 'sha256:'.length + 12),
    await uniquePrefix(),
  ];
}

const auth = (username: string) =>
  Buffer.from(JSON.stringify({ username, password: `${username}-pw`, serveraddress: REGISTRY })).toString('base64');

async function runImage(tenant: Tenant, image: string): Promise<{ status: string; msg: string; log: string }> {
  const worker = new WorkerClient(tenant.http, tenant.projectId);
  await worker.upload({ name: 'private', image, command: 'echo ran-the-private-image' });
  const id = await worker.queue('private', '');
  const task = await worker.waitFor(id, ['complete', 'error'], 60_000);
  return { status: task.status, msg: task.msg ?? '', log: await worker.log(id) };
}

beforeAll(async () => {
  const container = await docker('create', 'ferrum-test/busybox', 'true');
  await docker(
    'commit',
    '--change',
    `LABEL ferrum.test.secret=${process.pid}-${Date.now()}`,
    '--change',
    'CMD ["sh"]',
    container,
    `${IMAGE}:latest`,
  );
  await docker('rm', container);
  imageId = await docker('image', 'inspect', '--format', '{{.Id}}', `${IMAGE}:latest`);
  victim = await createTenant(server, 'image-victim');
  attacker = await createTenant(server, 'image-attacker');
  redis = new Redis(server.redisUrl);
  const victimWorker = new WorkerClient(victim.http, victim.projectId);
  expect((await victim.http.post(victimWorker.path('/credentials'), { auth: auth('victim') })).status).toBe(200);
  await new PrivateImages(redis, new WorkerKeys(new KeySpace(server.config.keyPrefix)), 600_000).recordPull(
    `${IMAGE}:latest`,
    victim.projectId,
    imageId,
  );
}, scaled(60_000));

afterAll(async () => {
  redis?.disconnect();
  await docker('rmi', `${IMAGE}:latest`).catch(() => undefined);
});

describe('a privately pulled image on the engine', () => {
  it('runs for the project that pulled it with its credentials', async () => {
    const run = await runImage(victim, IMAGE);
    expect(run.status, run.msg).toBe('complete');
    expect(run.log).toContain('ran-the-private-image');
  });

  it('does not run for another project without credentials, named with or without its tag', async () => {
    for (const image of [IMAGE, `${IMAGE}:latest`]) {
      const run = await runImage(attacker, image);
      expect(run.status).toBe('error');
      expect(run.msg).toMatch(/is private to the projects that pulled it/);
      expect(run.log).not.toContain('ran-the-private-image');
    }
  });

  it('does not run for another project named by its id, a prefix of it or sha256: and the id', async () => {
    for (const image of await idForms()) {
      const run = await runImage(attacker, image);
      expect(run.status, image).toBe('error');
      expect(run.msg).toMatch(/is private to the projects that pulled it/);
      expect(run.log).not.toContain('ran-the-private-image');
    }
  });

  it('runs for the project that pulled it named by its id too', async () => {
    const run = await runImage(victim, imageId);
    expect(run.status, run.msg).toBe('complete');
    expect(run.log).toContain('ran-the-private-image');
  });

  it("is pulled again with the other project's own credentials, which the registry must accept", async () => {
    const attackerWorker = new WorkerClient(attacker.http, attacker.projectId);
    expect((await attacker.http.post(attackerWorker.path('/credentials'), { auth: auth('attacker') })).status).toBe(
      200,
    );
    const run = await runImage(attacker, IMAGE);
    expect(run.status).toBe('error');
    expect(run.msg).toMatch(/is not available/);
    expect(run.log).not.toContain('ran-the-private-image');
  });

  it('leaves public images alone and the victim still runs its own', async () => {
    const run = await runImage(attacker, 'ferrum-test/busybox');
    expect(run.status, run.msg).toBe('complete');
    const again = await runImage(victim, IMAGE);
    expect(again.status, again.msg).toBe('complete');
    await expectHealthy(server);
  });
});

describe('a privately pulled image as a function', () => {
  /** A `default` route of `image` in an app of the tenant; its container runs the request body (busybox sh). */
  async function functionOf(tenant: Tenant, image: string): Promise<string> {
    const app = `${tenant.projectId.slice(-8)}-${Math.random().toString(36).slice(2, 8)}`;
    const created = await tenant.http.post('/v1/apps', { app: { name: app, project_id: tenant.projectId } });
    expect(created.status, created.text).toBe(200);
    const route = await tenant.http.post(`/v1/apps/${app}/routes`, { route: { path: '/run', image } });
    expect(route.status, route.text).toBe(200);
    return app;
  }

  const call = (tenant: Tenant, app: string) =>
    tenant.http.request('POST', `/r/${app}/run`, { token: null, raw: 'echo ran-the-private-image' });

  it('runs for the project that pulled it, and is refused (403) to another project without credentials', async () => {
    const own = await call(victim, await functionOf(victim, IMAGE));
    expect(own.status, own.text).toBe(200);
    expect(own.text).toContain('ran-the-private-image');
    const stranger = await createTenant(server, 'function-attacker');
    for (const image of [IMAGE, ...(await idForms())]) {
      const refused = await call(stranger, await functionOf(stranger, image));
      expect(refused.status, image).toBe(403);
      expect(refused.text).toMatch(/is private to the projects that pulled it/);
      expect(refused.text).not.toContain('ran-the-private-image');
    }
    await expectHealthy(server);
  });
});
