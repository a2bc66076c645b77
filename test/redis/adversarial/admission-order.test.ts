import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/test-file.js';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { sendHeadOnly } from '../../helpers/adversarial/raw-request.js';
import { scaled } from '../../helpers/pace.js';
import { routesByMethodOf } from '../../../controller/http/route-list.js';

// One admission order for every request: authenticate, authorize the project, then admit (the
// large-body gate). A stranger's `Content-Length: 671088640` with no body on a victim's cache
// item URL got its 401, but the gate had already booked the declared length for the victim's
// project: the victim's next 300 KB put waited 10 s and more, and random project ids grew the
// gate's table without bound. The test walks every registered route.
const HUGE = String(640 * 1024 * 1024);

const server = useTestServer({
  FERRUM_LARGE_BODY_BYTES: String(64 * 1024),
  FERRUM_LARGE_BODY_BYTES_PER_SECOND: String(1024 * 1024),
});
const victim = useTenant(server, 'admitted-victim');
const attacker = useTenant(server, 'admitted-attacker');

/** Each route's path with the victim's project and plain values for the other parameters. */
function concretePaths(projectId: string) {
  return routesByMethodOf(server.running.app).map(({ method, url }) => ({
    method,
    url,
    path: url
      .replace(':project_id', projectId)
      .replace(/:[A-Za-z_]+/g, 'x')
      .replace(/\*$/, 'x'),
  }));
}

async function sendHugeToEveryRoute(headers: Record<string, string>) {
  const answers: Array<{ route: string; status: number | null }> = [];
  for (const { method, url, path } of concretePaths(victim.projectId)) {
    const status = await sendHeadOnly(server.url, method, path, { 'content-length': HUGE, ...headers }, scaled(5000));
    answers.push({ route: `${method} ${url}`, status });
  }
  return answers;
}

describe('the admission order on every route', () => {
  it('lists the routes of every API', () => {
    const urls = routesByMethodOf(server.running.app).map((route) => route.url);
    for (const prefix of [
      '/1/projects/:project_id/caches',
      '/3/projects/:project_id/queues',
      '/2/projects/:project_id/tasks',
      '/v1/apps',
      '/ui/session',
    ])
      expect(
        urls.some((url) => url.startsWith(prefix)),
        prefix,
      ).toBe(true);
  });

  it("a stranger's huge Content-Length is answered at once on every route and books nothing", async () => {
    const answers = await sendHugeToEveryRoute({});
    for (const { route, status } of answers) {
      expect(status, route).not.toBeNull();
      expect(status! >= 400, `${route}: ${status}`).toBe(true);
      // A project's route turns a stranger away before it looks at the body's length.
      if (route.includes(':project_id')) expect(status, route).toBe(401);
    }
    const unknown = await sendHeadOnly(server.url, 'PUT', '/no/such/route', { 'content-length': HUGE }, scaled(5000));
    expect([404, 413]).toContain(unknown);
    expect(server.running.app.largeBodyGate()).toEqual({ slotKeys: 0, pacedKeys: 0 });
  });

  it("another tenant's huge Content-Length on the victim's routes is refused before it is booked", async () => {
    const answers = await sendHugeToEveryRoute({ authorization: `OAuth ${attacker.token}` });
    for (const { route, status } of answers) {
      expect(status, route).not.toBeNull();
      // 413 where the route checks membership in its handler (identity's project routes).
      if (route.includes(':project_id')) expect([403, 404, 413], route).toContain(status);
    }
    expect(server.running.app.largeBodyGate()).toEqual({ slotKeys: 0, pacedKeys: 0 });
  });

  it("a declared length over the route's limit is a 413 before anything is read or booked", async () => {
    const answers = await sendHugeToEveryRoute({ authorization: `OAuth ${victim.token}` });
    for (const { route, status } of answers.filter((each) => each.route.includes(':project_id'))) {
      expect([413, 404, 405], route).toContain(status);
    }
    expect(server.running.app.largeBodyGate()).toEqual({ slotKeys: 0, pacedKeys: 0 });
  });

  it("a body within a route's own larger limit is not refused (function calls take megabytes)", async () => {
    const call = await fetch(`${server.url}/r/no-such-app/path`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array(1024 * 1024),
    });
    await call.arrayBuffer();
    expect(call.status).not.toBe(413);
  });

  it("the victim's large put is answered at once afterwards", async () => {
    const started = Date.now();
    const put = await victim.http.put(`/1/projects/${victim.projectId}/caches/big/items/mine`, {
      value: 'x'.repeat(300 * 1024),
    });
    expect(put.status, put.text).toBe(200);
    expect(Date.now() - started).toBeLessThan(scaled(3000));
  });
});
