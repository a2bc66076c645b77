import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { useHardenedServer } from '../../helpers/adversarial/hardened-server.js';
import { HttpClient } from '../../helpers/http.js';
import { scaled } from '../../helpers/pace.js';

// `GET /1/projects/{B}/queues/jobs/messages?n=100&timeout=86400` with only B's session cookie
// (no dashboard header) answered 200 and reserved B's messages for a day: an <img> on any
// same-site page (a function on the functions port) did it. Every request the cookie signs in
// needs the dashboard's header, GET included.

const server = useHardenedServer();
const owner = useTenant(server, 'cookie-owner');
let cookie: string;
const plain = () => new HttpClient(server.url, null);

beforeAll(async () => {
  const session = await plain().post('/ui/session', undefined, {
    headers: { authorization: `OAuth ${owner.token}`, 'x-ferrum-dashboard': '1' },
  });
  expect(session.status, session.text).toBe(200);
  cookie = session.headers.get('set-cookie')!.split(';')[0]!;
  const posted = await owner.http.post(`/1/projects/${owner.projectId}/queues/jobs/messages`, {
    messages: [{ body: 'one' }, { body: 'two' }],
  });
  expect(posted.status, posted.text).toBe(201);
}, scaled(60_000));

describe('a request signed in by the session cookie alone', () => {
  it('cannot reserve messages by GET (what an <img> sends)', async () => {
    const path = `/1/projects/${owner.projectId}/queues/jobs/messages?n=100&timeout=86400`;
    const forged = await plain().get(path, { headers: { cookie } });
    expect(forged.status, forged.text).toBe(403);
    expect(forged.body.msg).toContain('x-ferrum-dashboard');
    // Nothing was reserved: both messages are still there for the owner.
    const peek = await owner.http.get(`/1/projects/${owner.projectId}/queues/jobs/messages/peek?n=10`);
    expect(peek.body.messages).toHaveLength(2);
  });

  it('cannot read anything either, on any API', async () => {
    for (const path of [
      '/1/projects',
      `/2/projects/${owner.projectId}/tasks`,
      `/1/projects/${owner.projectId}/caches`,
      '/v1/apps',
    ]) {
      const forged = await plain().get(path, { headers: { cookie } });
      expect(forged.status, path).toBe(403);
      const fromDashboard = await plain().get(path, { headers: { cookie, 'x-ferrum-dashboard': '1' } });
      expect(fromDashboard.status, path).toBe(200);
    }
  });
});
