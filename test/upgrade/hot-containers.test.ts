import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signalAndWait, startFerrumProcess, type FerrumProcess } from '../helpers/ferrum-process.js';
import { HttpClient } from '../helpers/http.js';
import { scaled } from '../helpers/pace.js';
import { startTestRedis } from '../helpers/redis.js';
import { builtRelease, previousReleases } from '../helpers/releases.js';

/**
 * The hot_containers quota beside the previous release on one Redis: that release creates,
 * changes and deletes routes without the reservation hash this checkout keeps
 * (src/functions/routes/hot-containers.ts), and this checkout still counts its routes as they are.
 */
describe.each(previousReleases().slice(0, 1))('hot containers beside $name ($commit)', (release) => {
  let redis: Awaited<ReturnType<typeof startTestRedis>>;
  const procs: FerrumProcess[] = [];
  let old: HttpClient;
  let current: HttpClient;
  let projectId: string;

  beforeAll(async () => {
    const folder = builtRelease(release);
    redis = await startTestRedis();
    const env = { FERRUM_ENCRYPTION_KEY: 'upgrade-test-secret', LOG_LEVEL: 'warn', REDIS_URL: redis.url };
    const oldProc = await startFerrumProcess('controller', { release: folder, env });
    procs.push(oldProc);
    const currentProc = await startFerrumProcess('controller', { env });
    procs.push(currentProc);
    old = new HttpClient(oldProc.url, oldProc.token!);
    current = new HttpClient(currentProc.url, oldProc.token!);
    projectId = oldProc.projectId!;
    const quota = await current.patch(`/1/projects/${projectId}`, { quotas: { hot_containers: 6 } });
    expect(quota.status, quota.text).toBe(200);
  }, scaled(300_000));

  afterAll(async () => {
    for (const proc of procs) await signalAndWait(proc, 'SIGKILL').catch(() => undefined);
    await redis?.stop();
  });

  const hot = (path: string, maxConcurrency: number) => ({
    route: { path, image: 'busybox', format: 'http', max_concurrency: maxConcurrency },
  });
  const create = (client: HttpClient, path: string, maxConcurrency: number) =>
    client.post(`/v1/apps/side/routes?project_id=${projectId}`, hot(path, maxConcurrency));

  it("counts the old release's routes, its changes and its deletions", async () => {
    expect((await create(old, '/old', 4)).status).toBe(200);
    const refused = await create(current, '/new', 3);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/hot_containers/);
    expect((await create(current, '/new', 2)).status).toBe(200);
    // The old release lowers its route, then deletes it: the room comes back here.
    expect((await old.patch('/v1/apps/side/routes/old', { route: { max_concurrency: 1 } })).status).toBe(200);
    expect((await create(current, '/more', 3)).status).toBe(200);
    expect((await create(current, '/most', 1)).status).toBe(403);
    expect((await old.delete('/v1/apps/side/routes/old')).status).toBe(200);
    expect((await create(current, '/most', 1)).status).toBe(200);
  });
});
