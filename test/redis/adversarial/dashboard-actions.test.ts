import { beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../helpers/http.js';
import { useHardenedServer } from '../../helpers/adversarial/hardened-server.js';
import { useTenant, type Tenant } from '../../helpers/adversarial/tenant-data.js';
import { scaled } from '../../helpers/pace.js';
import { WorkerClient } from '../../helpers/worker.js';

// The dashboard's actions (delete a queue, cache or package; edit queue settings; pause and resume
// a package's queue; reserve, touch, release and delete messages; retry and cancel tasks) are the
// API's own routes signed in by the session cookie: each needs the dashboard's header (invariant
// 5), and another project's ids are refused as for a token (invariant 8).
const server = useHardenedServer();
const owner = useTenant(server, 'dash-owner');
const other = useTenant(server, 'dash-other');
let cookie: string;
let theirs: { message: any; code: string; task: string };
const plain = () => new HttpClient(server.url, null);
const DASHBOARD = { 'x-ferrum-dashboard': '1' };

beforeAll(async () => {
  const session = await plain().post('/ui/session', undefined, {
    headers: { authorization: `OAuth ${owner.token}`, ...DASHBOARD },
  });
  expect(session.status, session.text).toBe(200);
  cookie = session.headers.get('set-cookie')!.split(';')[0]!;
  for (const tenant of [owner, other]) await plantProject(tenant);
  const reserved = await other.http.post(`/3/projects/${other.projectId}/queues/jobs/reservations`, {
    n: 1,
    timeout: 600,
  });
  const worker = new WorkerClient(other.http, other.projectId);
  const code = (await other.http.get(`/2/projects/${other.projectId}/codes`)).body.codes[0].id;
  theirs = { message: reserved.body.messages[0], code, task: await worker.queue('pkg', '{}', { delay: 3600 }) };
}, scaled(60_000));

async function plantProject(tenant: Tenant): Promise<void> {
  const project = tenant.projectId;
  const posted = await tenant.http.post(`/3/projects/${project}/queues/jobs/messages`, {
    messages: [{ body: 'one' }, { body: 'two' }],
  });
  expect(posted.status, posted.text).toBe(201);
  expect((await tenant.http.put(`/1/projects/${project}/caches/c/items/k`, { value: 'v' })).status).toBe(200);
  expect(typeof (await new WorkerClient(tenant.http, project).upload({ name: 'pkg', image: 'busybox' }))).toBe(
    'string',
  );
}

/** Every dashboard action, on `project`'s things (`ids`: a message under its reservation, a code, a task). */
function actions(project: string, ids: { message: any; code: string; task: string }) {
  const queue = `/3/projects/${project}/queues/jobs`;
  const message = `${queue}/messages/${ids.message.id}`;
  const held = { reservation_id: ids.message.reservation_id };
  return [
    ['PATCH', queue, { queue: { message_timeout: 61 } }],
    ['POST', `${queue}/reservations`, { n: 1, timeout: 600 }],
    ['POST', `${message}/touch`, held],
    ['POST', `${message}/release`, held],
    ['DELETE', message, held],
    ['DELETE', `${queue}/messages`, {}],
    ['DELETE', queue, undefined],
    ['POST', `/1/projects/${project}/caches/c/clear`, {}],
    ['DELETE', `/1/projects/${project}/caches/c`, undefined],
    ['POST', `/2/projects/${project}/codes/${ids.code}/pause_task_queue`, {}],
    ['POST', `/2/projects/${project}/codes/${ids.code}/resume_task_queue`, {}],
    ['POST', `/2/projects/${project}/tasks/${ids.task}/cancel`, {}],
    ['POST', `/2/projects/${project}/tasks/${ids.task}/retry`, {}],
    ['DELETE', `/2/projects/${project}/codes/${ids.code}`, undefined],
  ] as const;
}

async function send(method: string, path: string, body: unknown, headers: Record<string, string>) {
  const client = plain();
  const options = { headers: { cookie, ...headers } };
  if (method === 'PATCH') return client.patch(path, body, options);
  if (method === 'POST') return client.post(path, body, options);
  return client.delete(path, body, options);
}

async function expectIntact(tenant: Tenant, ids: { message: any; code: string; task: string }): Promise<void> {
  const project = tenant.projectId;
  const queue = (await tenant.http.get(`/3/projects/${project}/queues/jobs`)).body.queue;
  expect(queue).toMatchObject({ size: 2, reserved: 1, message_timeout: 60 });
  expect((await tenant.http.get(`/1/projects/${project}/caches/c/items/k`)).body.value).toBe('v');
  expect((await tenant.http.get(`/2/projects/${project}/codes/${ids.code}`)).status).toBe(200);
  expect((await tenant.http.get(`/2/projects/${project}/tasks/${ids.task}`)).body.status).toBe('queued');
}

describe('dashboard actions over the session cookie', () => {
  it("another project's ids, with the dashboard header: refused, nothing changed", async () => {
    for (const [method, path, body] of actions(other.projectId, theirs)) {
      const answer = await send(method, path, body, DASHBOARD);
      expect([403, 404], `${method} ${path}: ${answer.status} ${answer.text}`).toContain(answer.status);
      expect(answer.body.msg).toBeTruthy();
    }
    // Its own project in the path, the other project's message, code and task ids.
    const byId = actions(owner.projectId, theirs).filter(([, path]) =>
      [theirs.message.id, theirs.code, theirs.task].some((id) => path.includes(id)),
    );
    expect(byId).toHaveLength(8);
    for (const [method, path, body] of byId) {
      const answer = await send(method, path, body, DASHBOARD);
      expect([403, 404], `${method} ${path}: ${answer.status} ${answer.text}`).toContain(answer.status);
    }
    await expectIntact(other, theirs);
  });

  it('its own project without the dashboard header (a form or <img> from another page): 403, nothing changed', async () => {
    const reserved = await owner.http.post(`/3/projects/${owner.projectId}/queues/jobs/reservations`, {
      n: 1,
      timeout: 600,
    });
    const worker = new WorkerClient(owner.http, owner.projectId);
    const code = (await owner.http.get(`/2/projects/${owner.projectId}/codes`)).body.codes[0].id;
    const mine = { message: reserved.body.messages[0], code, task: await worker.queue('pkg', '{}', { delay: 3600 }) };
    for (const [method, path, body] of actions(owner.projectId, mine)) {
      const answer = await send(method, path, body, {});
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.msg).toContain('x-ferrum-dashboard');
    }
    await expectIntact(owner, mine);
  });
});
