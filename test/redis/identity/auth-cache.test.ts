import { describe, expect, it } from 'vitest';
import { startManagedRedis } from '../../../src/core/managed-redis.js';
import { HttpClient } from '../../helpers/http.js';
import { createUserWithToken } from '../../helpers/identity.js';
import { useControllerBeside, useTestServer } from '../../helpers/test-file.js';
import { scaled } from '../../helpers/pace.js';

const a = useTestServer({ FERRUM_TOKEN_CACHE_MS: '60000' });
const b = useControllerBeside(a);

describe('token cache across controllers', () => {
  it('a second controller on the same Redis creates nothing at start', () => {
    expect(b.bootstrap).toBeNull();
  });

  // "At once" against a 60 s cache: anything well under a minute proves the invalidation; the
  // wait is generous for a loaded machine.
  it('drops a deleted token on every controller at once, despite a long cache', async () => {
    const user = await createUserWithToken(a.http);
    const onB = new HttpClient(b.url, user.token);
    expect((await onB.get('/1/tokens')).status).toBe(200); // cached on B for 60 s
    expect((await user.http.delete(`/1/tokens/${user.tokenId}`)).status).toBe(200); // deleted through A
    await expect
      .poll(async () => (await onB.get('/1/tokens')).status, { timeout: scaled(10_000), interval: 20 })
      .toBe(401);
  });

  it('drops a cached project on every controller when it is suspended', async () => {
    const user = await createUserWithToken(a.http);
    const project = (await user.http.post('/1/projects', { name: 'p' })).body;
    const onB = new HttpClient(b.url, user.token);
    expect((await onB.get(`/1/authentication?project_id=${project.id}`)).status).toBe(200);
    await a.http.patch(`/1/projects/${project.id}`, { status: 'suspended' });
    await expect
      .poll(async () => (await onB.get(`/1/authentication?project_id=${project.id}`)).status, {
        timeout: scaled(10_000),
        interval: 20,
      })
      .toBe(403);
  });
});

// With both the token and the project cached, a request is authorized from the cache alone
// (Authenticator.cachedProjectAccess): the refusals must be the look-up's.
describe('refusals with the token and the project cached', () => {
  it('an earlier-generation token cached by v1 is still refused by v3 (401)', async () => {
    const v2 = (await a.http.post('/1/tokens', { type: 'v2', name: 'cached-old' })).body.token as string;
    const old = a.http.withToken(v2);
    expect((await old.get(`/1/projects/${a.projectId}/queues`)).status).toBe(200); // token and project cached
    for (let i = 0; i < 2; i += 1) {
      const refused = await old.get(`/3/projects/${a.projectId}/queues`);
      expect(refused.status).toBe(401);
      expect(refused.body.msg).toMatch(/earlier API generation/);
    }
  });

  it("a cached user's token on a project cached by its owner's requests: 403, each time", async () => {
    const stranger = await createUserWithToken(a.http, 'cached-stranger');
    expect((await stranger.http.get('/1/tokens')).status).toBe(200); // the stranger's token cached
    expect((await a.http.get(`/3/projects/${a.projectId}/queues`)).status).toBe(200); // the project cached
    for (let i = 0; i < 2; i += 1) {
      const refused = await stranger.http.get(`/3/projects/${a.projectId}/queues`);
      expect(refused.status).toBe(403);
      expect(refused.body.msg).toEqual(expect.any(String));
    }
  });

  it('a suspended project refuses its cached owner (403) until it is active again', async () => {
    const user = await createUserWithToken(a.http, 'cached-owner');
    const project = (await user.http.post('/1/projects', { name: 'cached' })).body.id as string;
    const queues = `/3/projects/${project}/queues`;
    expect((await user.http.get(queues)).status).toBe(200);
    await a.http.patch(`/1/projects/${project}`, { status: 'suspended' });
    await expect
      .poll(async () => (await user.http.get(queues)).status, { timeout: scaled(10_000), interval: 20 })
      .toBe(403);
    expect((await user.http.get(queues)).status).toBe(403);
    await a.http.patch(`/1/projects/${project}`, { status: 'active' });
    await expect
      .poll(async () => (await user.http.get(queues)).status, { timeout: scaled(10_000), interval: 20 })
      .toBe(200);
  });
});

describe('managed redis-server', () => {
  it('says how to install Redis when redis-server is missing', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      await expect(startManagedRedis({ dataDir: '/tmp/ferrum-never', persistent: false })).rejects.toThrow(
        /apt-get install -y redis-server/,
      );
    } finally {
      process.env.PATH = path;
    }
  });
});
