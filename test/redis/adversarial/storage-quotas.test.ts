import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  useTenant,
  useVictim,
  expectHealthyAndIntact,
  newTenant,
  type Tenant,
} from '../../helpers/adversarial/tenant-data.js';
import { useTestServer } from '../../helpers/test-file.js';
import { loadConfig } from '../../../src/core/config.js';
import { startManagedRedis } from '../../../src/core/managed-redis.js';
import { eventually } from '../../helpers/eventually.js';
import { uploadForm, zipOf } from '../../helpers/worker.js';
import { ProjectStorage } from '../../../src/auth/stored-bytes.js';
import { CallBytes } from '../../../src/functions/calls/call-bytes.js';

// A tenant cannot fill Redis until everything stops: what a project stores is counted and
// capped by quotas the operator sets (and an admin may change per project); past one the
// answer names the quota, and nothing already stored is lost.
const STORED_BYTES = 400_000;
const server = useTestServer({
  FERRUM_PROJECT_MAX_STORED_BYTES: String(STORED_BYTES),
  FERRUM_PROJECT_MAX_QUEUE_BYTES: '100000',
  FERRUM_PROJECT_MAX_QUEUES: '3',
  FERRUM_PROJECT_MAX_CACHES: '3',
  FERRUM_PROJECT_MAX_APPS: '2',
  FERRUM_PROJECT_MAX_ROUTES: '3',
  FERRUM_PROJECT_MAX_QUEUED_CALLS: '2',
  FERRUM_PROJECT_MAX_HOT_CONTAINERS: '15',
  FERRUM_WORKER_REVISIONS_KEPT: '2',
});
const victim = useVictim(server);
const hostile = useTenant(server, 'hostile');

/** A zip of random text: about three quarters of `chars` bytes. */
async function bulkyZip(chars: number): Promise<Buffer> {
  return zipOf({ 'data.txt': randomBytes(Math.ceil((chars * 3) / 4)).toString('base64') });
}

function upload(tenant: Tenant, name: string, zip: Buffer) {
  const form = uploadForm({ name, image: 'busybox', command: 'true' }, zip);
  return tenant.http.post(`/2/projects/${tenant.projectId}/codes`, undefined, { raw: form });
}

async function emptyProject(tenant: Tenant): Promise<void> {
  const codes = await tenant.http.get(`/2/projects/${tenant.projectId}/codes`);
  for (const code of codes.body.codes) await tenant.http.delete(`/2/projects/${tenant.projectId}/codes/${code.id}`);
  const caches = await tenant.http.get(`/1/projects/${tenant.projectId}/caches`);
  for (const cache of caches.body) await tenant.http.delete(`/1/projects/${tenant.projectId}/caches/${cache.name}`);
}

describe('stored bytes (code archives and cache items)', () => {
  it('refuses the code archive that would pass the quota with 413 naming it; earlier archives stay', async () => {
    const zip = await bulkyZip(150_000);
    for (const name of ['one', 'two', 'three']) expect((await upload(hostile, name, zip)).status).toBe(200);
    const refused = await upload(hostile, 'four', zip);
    expect(refused.status).toBe(413);
    expect(refused.body.msg).toContain('stored_bytes');
    expect(refused.body.msg).toContain('FERRUM_PROJECT_MAX_STORED_BYTES');
    const codes = (await hostile.http.get(`/2/projects/${hostile.projectId}/codes`)).body.codes;
    expect(codes.map((code: any) => code.name).sort()).toEqual(['one', 'three', 'two']);
    for (const code of codes) {
      const download = await hostile.http.get(`/2/projects/${hostile.projectId}/codes/${code.id}/download`);
      expect(download.status).toBe(200);
    }
    // Deleting a package gives its bytes back.
    const one = codes.find((code: any) => code.name === 'one');
    expect((await hostile.http.delete(`/2/projects/${hostile.projectId}/codes/${one.id}`)).status).toBe(200);
    expect((await upload(hostile, 'four', zip)).status).toBe(200);
    await expectHealthyAndIntact(server, victim);
    await emptyProject(hostile);
  });

  it('keeps the zips of the newest revisions only, so re-uploading one package never fills the quota', async () => {
    const zip = await bulkyZip(150_000);
    let id = '';
    for (let i = 0; i < 6; i++) {
      const answer = await upload(hostile, 'often', zip);
      expect(answer.status, answer.text).toBe(200);
      id = answer.body.id;
    }
    const download = (rev: number) =>
      hostile.http.get(`/2/projects/${hostile.projectId}/codes/${id}/download?revision=${rev}`);
    const pruned = await download(4);
    expect(pruned.status).toBe(404);
    expect(pruned.body.msg).toContain('FERRUM_WORKER_REVISIONS_KEPT');
    expect((await download(5)).status).toBe(200);
    expect((await download(6)).status).toBe(200);
    await emptyProject(hostile);
  });

  it('counts cache items in the same quota: 413 past it, the stored items intact, deleting frees room', async () => {
    const items = `/1/projects/${hostile.projectId}/caches/fill/items`;
    const value = 'x'.repeat(100_000);
    for (const key of ['a', 'b', 'c']) expect((await hostile.http.put(`${items}/${key}`, { value })).status).toBe(200);
    const refused = await hostile.http.put(`${items}/d`, { value });
    expect(refused.status).toBe(413);
    expect(refused.body.msg).toContain('stored_bytes');
    expect((await hostile.http.get(`${items}/d`)).status).toBe(404);
    // Code archives share the quota with the cache.
    expect((await upload(hostile, 'late', await bulkyZip(150_000))).status).toBe(413);
    expect((await hostile.http.get(`${items}/a`)).body.value).toBe(value);
    // Replacing an item counts only its growth; deleting one frees its bytes.
    expect((await hostile.http.put(`${items}/a`, { value })).status).toBe(200);
    expect((await hostile.http.delete(`${items}/a`)).status).toBe(200);
    expect((await hostile.http.put(`${items}/d`, { value })).status).toBe(200);
    // Clearing the cache frees all of it.
    expect((await hostile.http.post(`/1/projects/${hostile.projectId}/caches/fill/clear`, {})).status).toBe(200);
    for (const key of ['a', 'b', 'c']) expect((await hostile.http.put(`${items}/${key}`, { value })).status).toBe(200);
    await expectHealthyAndIntact(server, victim);
    await emptyProject(hostile);
  });

  it('refuses a cache past the caches quota with 403 naming it, for put and increment', async () => {
    for (const cache of ['c1', 'c2', 'c3'])
      expect(
        (await hostile.http.put(`/1/projects/${hostile.projectId}/caches/${cache}/items/k`, { value: 1 })).status,
      ).toBe(200);
    const put = await hostile.http.put(`/1/projects/${hostile.projectId}/caches/c4/items/k`, { value: 1 });
    expect(put.status).toBe(403);
    expect(put.body.msg).toContain('FERRUM_PROJECT_MAX_CACHES');
    const increment = await hostile.http.post(`/1/projects/${hostile.projectId}/caches/c4/items/k/increment`, {
      amount: 1,
    });
    expect(increment.status).toBe(403);
    // An existing cache still takes items.
    expect((await hostile.http.put(`/1/projects/${hostile.projectId}/caches/c1/items/k2`, { value: 1 })).status).toBe(
      200,
    );
    await emptyProject(hostile);
  });
});

describe('queues', () => {
  const queue = (name: string) => `/3/projects/${hostile.projectId}/queues/${name}`;

  it('refuses a queue past the queues quota with 403 naming it, by post, create and v1 update', async () => {
    expect((await hostile.http.put(queue('q1'), { queue: {} })).status).toBe(200);
    expect((await hostile.http.post(`${queue('q2')}/messages`, { messages: [{ body: 'x' }] })).status).toBe(201);
    expect((await hostile.http.post(`/1/projects/${hostile.projectId}/queues/q3`, {})).status).toBe(200);
    for (const refused of [
      await hostile.http.put(queue('q4'), { queue: {} }),
      await hostile.http.post(`${queue('q4')}/messages`, { messages: [{ body: 'x' }] }),
      await hostile.http.post(`/1/projects/${hostile.projectId}/queues/q4`, {}),
    ]) {
      expect(refused.status).toBe(403);
      expect(refused.body.msg).toContain('FERRUM_PROJECT_MAX_QUEUES');
    }
    expect((await hostile.http.get(queue('q4'))).status).toBe(404);
    // Existing queues still take messages; deleting one makes room.
    expect((await hostile.http.post(`${queue('q1')}/messages`, { messages: [{ body: 'x' }] })).status).toBe(201);
    expect((await hostile.http.delete(queue('q1'))).status).toBe(200);
    expect((await hostile.http.put(queue('q4'), { queue: {} })).status).toBe(200);
  });

  it("refuses a post that would pass the queue's bytes with 413 naming the quota; nothing of it is stored", async () => {
    const body = 'y'.repeat(40_000);
    const posted = await hostile.http.post(`${queue('q2')}/messages`, { messages: [{ body }, { body }] });
    expect(posted.status).toBe(201);
    const refused = await hostile.http.post(`${queue('q2')}/messages`, { messages: [{ body }] });
    expect(refused.status).toBe(413);
    expect(refused.body.msg).toContain('FERRUM_PROJECT_MAX_QUEUE_BYTES');
    expect((await hostile.http.get(queue('q2'))).body.queue.size).toBe(3);
    // Deleting messages gives their bytes back.
    const reserved = await hostile.http.post(`${queue('q2')}/reservations`, { n: 3, delete: true });
    expect(reserved.body.messages).toHaveLength(3);
    expect((await hostile.http.post(`${queue('q2')}/messages`, { messages: [{ body }, { body }] })).status).toBe(201);
    // So does clearing the queue.
    expect((await hostile.http.delete(`${queue('q2')}/messages`, {})).status).toBe(200);
    expect((await hostile.http.post(`${queue('q2')}/messages`, { messages: [{ body }, { body }] })).status).toBe(201);
    await expectHealthyAndIntact(server, victim);
  });
});

describe('functions', () => {
  it('refuses apps and routes past their quotas with 403 naming them', async () => {
    const apps = (name: string) => ({ app: { name, project_id: hostile.projectId } });
    expect((await hostile.http.post('/v1/apps', apps('quota-a1'))).status).toBe(200);
    expect((await hostile.http.post('/v1/apps', apps('quota-a2'))).status).toBe(200);
    const thirdApp = await hostile.http.post('/v1/apps', apps('quota-a3'));
    expect(thirdApp.status).toBe(403);
    expect(thirdApp.text).toContain('FERRUM_PROJECT_MAX_APPS');
    const route = (path: string) => ({ route: { path, image: 'busybox', type: 'async' } });
    for (const path of ['/r1', '/r2', '/r3'])
      expect((await hostile.http.post('/v1/apps/quota-a1/routes', route(path))).status).toBe(200);
    const fourthRoute = await hostile.http.post('/v1/apps/quota-a2/routes', route('/r4'));
    expect(fourthRoute.status).toBe(403);
    expect(fourthRoute.text).toContain('FERRUM_PROJECT_MAX_ROUTES');
    // A route that would create a third app is refused too, and creates no app.
    const newApp = await hostile.http.post(`/v1/apps/quota-a3/routes?project_id=${hostile.projectId}`, route('/x'));
    expect(newApp.status).toBe(403);
    expect((await hostile.http.get('/v1/apps/quota-a3')).status).toBe(404);
  });

  it('refuses an async call past the queued calls quota with 403 naming it; the queued ones stay', async () => {
    // No runner takes calls in this server: they wait in the queue.
    for (let i = 0; i < 2; i++)
      expect((await server.http.post('/r/quota-a1/r1', 'x', { token: null })).status).toBe(202);
    const refused = await server.http.post('/r/quota-a1/r1', 'x', { token: null });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('FERRUM_PROJECT_MAX_QUEUED_CALLS');
    const records = await hostile.http.get('/v1/apps/quota-a1/calls');
    expect(records.body.calls.map((call: any) => call.status)).toEqual(['queued', 'queued']);
  });
});

describe('stored bytes (call records and logs, message bodies)', () => {
  // A project of its own, with a small stored_bytes an admin sets: a few records fill it.
  let caller: Tenant;
  const ROOM = 1200;

  beforeAll(async () => {
    caller = await newTenant(server, 'caller');
    const quotas = { stored_bytes: ROOM, queued_calls: 100 };
    expect((await server.http.patch(`/1/projects/${caller.projectId}`, { quotas })).status).toBe(200);
  });

  async function newApp(name: string): Promise<void> {
    expect((await caller.http.post('/v1/apps', { app: { name, project_id: caller.projectId } })).status).toBe(200);
    for (const [path, type] of [
      ['/later', 'async'],
      ['/now', 'sync'],
    ])
      expect(
        (await caller.http.post(`/v1/apps/${name}/routes`, { route: { path, image: 'busybox', type } })).status,
      ).toBe(200);
  }

  function expectStoredBytesRefusal(answer: { status: number; text: string }): void {
    expect(answer.status, answer.text).toBe(413);
    expect(answer.text).toContain('quota stored_bytes reached');
    expect(answer.text).toContain('call records and logs');
  }

  it('counts call records: past the quota async and sync calls get 413, the records stay, deleting the app frees room', async () => {
    await newApp('bytes-app');
    let accepted = 0;
    let refused = await server.http.post('/r/bytes-app/later', 'x', { token: null });
    while (refused.status === 202 && accepted < 50) {
      accepted++;
      refused = await server.http.post('/r/bytes-app/later', 'x', { token: null });
    }
    expect(accepted).toBeGreaterThan(1);
    expectStoredBytesRefusal(refused);
    expectStoredBytesRefusal(await server.http.post('/r/bytes-app/now', 'x', { token: null }));
    const records = await caller.http.get('/v1/apps/bytes-app/calls');
    expect(records.body.calls).toHaveLength(accepted);
    for (const path of ['/later', '/now'])
      expect((await caller.http.delete(`/v1/apps/bytes-app/routes${path}`)).status).toBe(200);
    expect((await caller.http.delete('/v1/apps/bytes-app')).status).toBe(200);
    await newApp('bytes-app');
    expect((await server.http.post('/r/bytes-app/later', 'x', { token: null })).status).toBe(202);
    for (const path of ['/later', '/now'])
      expect((await caller.http.delete(`/v1/apps/bytes-app/routes${path}`)).status).toBe(200);
    expect((await caller.http.delete('/v1/apps/bytes-app')).status).toBe(200);
  });

  it("counts a call's log when the call ends, once", async () => {
    const { redis, keys, functions } = server.running.ctx;
    const counter = new ProjectStorage(redis, keys).counter('calls', 'log-project');
    const record = {
      id: 'log-call',
      appName: 'log-app',
      path: '/p',
      projectId: 'log-project',
      format: 'default' as const,
      type: 'async' as const,
      status: 'queued' as const,
      createdAt: Date.now(),
      startedAt: null,
      completedAt: null,
      error: null,
    };
    await functions.calls.create(record);
    const queued = Number(await redis.get(counter));
    expect(queued).toBeGreaterThan(0);
    expect(await functions.calls.finish('log-app', 'log-call', 'success', undefined, 'l'.repeat(3000))).toBe(true);
    const ended = Number(await redis.get(counter));
    expect(ended).toBeGreaterThan(queued + 3000);
    expect(ended).toBeLessThan(queued + 3200);
    await expect(functions.calls.bytes.checkRoom('log-project', 3000)).rejects.toThrow('quota stored_bytes reached');
    expect(await functions.calls.log('log-app', 'log-call')).toBe('l'.repeat(3000));
    // A second end changes nothing, and deleting the app's calls gives everything back.
    expect(await functions.calls.finish('log-app', 'log-call', 'error', 'late', 'more')).toBe(false);
    expect(Number(await redis.get(counter))).toBe(ended);
    await functions.calls.dropApp('log-project', 'log-app');
    expect(await redis.get(counter)).toBe('0');
    expect(await functions.calls.get('log-app', 'log-call')).toBeNull();
  });

  it('gives back the bytes of calls once their records are past the retention', async () => {
    const { redis, keys, functions } = server.running.ctx;
    // Long enough that the first check comes before it ends, however loaded the machine (50 ms
    // did not hold beside the other lanes of a CI run).
    const retentionMs = 3000;
    const calls = new CallBytes(redis, functions.keys, new ProjectStorage(redis, keys), retentionMs);
    const projectId = 'retention-project';
    await calls.count(projectId, [{ appName: 'gone', callId: 'c1', bytes: 5000 }]);
    await expect(calls.checkRoom(projectId, 1000)).rejects.toThrow('quota stored_bytes reached');
    await eventually(
      () =>
        calls.checkRoom(projectId, 1000).then(
          () => true,
          () => false,
        ),
      20_000,
      'the expired call is given back',
    );
    expect(await redis.get(new ProjectStorage(redis, keys).counter('calls', projectId))).toBe('0');
  });

  it('counts message bodies: a post past the quota gets 413, the messages stay, deleting one frees room', async () => {
    const queue = `/3/projects/${caller.projectId}/queues/bytes`;
    const posted = await caller.http.post(`${queue}/messages`, { messages: [{ body: 'm'.repeat(800) }] });
    expect(posted.status, posted.text).toBe(201);
    const late = { messages: [{ body: 'n'.repeat(600) }] };
    expectStoredBytesRefusal(await caller.http.post(`${queue}/messages`, late));
    expect((await caller.http.get(queue)).body.queue.size).toBe(1);
    const id = posted.body.ids[0];
    expect((await caller.http.get(`${queue}/messages/${id}`)).body.message.body).toBe('m'.repeat(800));
    // Messages share the quota with cache items.
    const item = `/1/projects/${caller.projectId}/caches/c/items/k`;
    expectStoredBytesRefusal(await caller.http.put(item, { value: 'v'.repeat(600) }));
    expect((await caller.http.delete(`${queue}/messages/${id}`, {})).status).toBe(200);
    expect((await caller.http.post(`${queue}/messages`, late)).status).toBe(201);
  });
});

describe('hot containers', () => {
  it("refuses a route whose max_concurrency would pass the project's hot containers with 403 naming it", async () => {
    const hot = (fields: Record<string, unknown>) => ({ route: { format: 'http', ...fields } });
    expect((await hostile.http.patch('/v1/apps/quota-a1/routes/r2', hot({ max_concurrency: 10 }))).status).toBe(200);
    const refused = await hostile.http.patch('/v1/apps/quota-a1/routes/r3', hot({ max_concurrency: 10 }));
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('FERRUM_PROJECT_MAX_HOT_CONTAINERS');
    expect((await hostile.http.get('/v1/apps/quota-a1/routes/r3')).body.route.format).toBe('default');
    expect((await hostile.http.patch('/v1/apps/quota-a1/routes/r3', hot({ max_concurrency: 5 }))).status).toBe(200);
    // A route's own change counts only once: lowering it and raising it again within the quota is fine.
    expect((await hostile.http.patch('/v1/apps/quota-a1/routes/r2', hot({ max_concurrency: 9 }))).status).toBe(200);
    expect((await hostile.http.patch('/v1/apps/quota-a1/routes/r2', hot({ max_concurrency: 10 }))).status).toBe(200);
  });
});

describe('per-project quotas', () => {
  it('an admin raises or resets one project’s quota; its owner may not', async () => {
    const project = `/1/projects/${hostile.projectId}`;
    const byOwner = await hostile.http.patch(project, { quotas: { queues: 100 } });
    expect(byOwner.status).toBe(403);
    const raised = await server.http.patch(project, { quotas: { queues: 5, caches: null } });
    expect(raised.status, raised.text).toBe(200);
    expect(raised.body.quotas).toMatchObject({ queues: 5, caches: 3, stored_bytes: STORED_BYTES });
    expect((await hostile.http.put(`/3/projects/${hostile.projectId}/queues/q5`, { queue: {} })).status).toBe(200);
    // The victim keeps the operator's defaults.
    expect((await victim.http.get(`/1/projects/${victim.projectId}`)).body.quotas.queues).toBe(3);
    expect((await server.http.patch(project, { quotas: { queues: -1 } })).status).toBe(400);
    const reset = await server.http.patch(project, { quotas: { queues: null } });
    expect(reset.body.quotas.queues).toBe(3);
  });
});

describe('the managed Redis', () => {
  it('has a maxmemory by default, with noeviction: a full Redis refuses writes instead of dropping data', async () => {
    expect(loadConfig({}).redis.maxmemoryBytes).toBeGreaterThan(0);
    expect(loadConfig({ FERRUM_REDIS_MAXMEMORY_MB: '0' }).redis.maxmemoryBytes).toBe(0);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-maxmemory-'));
    const managed = await startManagedRedis({ dataDir, persistent: false, maxmemoryBytes: 64 * 1024 * 1024 });
    const redis = new Redis(managed.url);
    try {
      expect(await redis.config('GET', 'maxmemory')).toEqual(['maxmemory', String(64 * 1024 * 1024)]);
      expect(await redis.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    } finally {
      redis.disconnect();
      await managed.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
