import { expect } from 'vitest';
import type { HttpClient, HttpResponse } from '../http.js';
import { createUserWithToken } from '../identity.js';
import { startTestServer, type TestServer } from '../server.js';
import { createTenant, type Tenant } from '../adversarial/hardened-server.js';
import { uploadForm, zipOf } from '../worker.js';

/**
 * A production-like server (no outbound allow-list) with its second, functions-only listener;
 * calls nobody takes give up at once (no runner runs here), and failed sign-ins are not slowed
 * (the slowdown is the sign-in lockout's own test) so every answer comes within the 2 s bound.
 */
export function startFuzzServer(): Promise<TestServer> {
  return startTestServer({
    FERRUM_OUTBOUND_ALLOW: '',
    FERRUM_FUNCTIONS_PORT: '0',
    FERRUM_FUNCTIONS_QUEUE_WAIT_MS: '100',
    FERRUM_FUNCTIONS_GRACE_MS: '0',
    FERRUM_LOGIN_MAX_DELAY_MS: '0',
    FERRUM_ENCRYPTION_KEY: 'fuzz-secret',
  });
}

/** The tenant the generated requests act as, and the real names and ids of its things, by path parameter. */
export interface FuzzWorld {
  tenant: Tenant;
  runnerToken: string;
  /** Real values for each path parameter (the generator mixes them with hostile ones). */
  params: Record<string, string[]>;
  /** The same for /r/ (function calls): an app whose route the management requests leave alone. */
  callParams: Record<string, string[]>;
}

const ok = (response: HttpResponse, what: string): HttpResponse => {
  if (response.status >= 300) throw new Error(`${what} failed: ${response.status} ${response.text}`);
  return response;
};

/** A tenant with one of everything: cache item, queue and message, code, task, schedule, cluster and runner token, apps and a call. */
export async function buildWorld(server: TestServer, label: string): Promise<FuzzWorld> {
  const tenant = await createTenant(server, label);
  const other = await createUserWithToken(server.http, `${label}-other`);
  const { http, projectId } = tenant;
  const project = `/1/projects/${projectId}`;
  ok(await http.put(`${project}/caches/fuzz-cache/items/fuzz-key`, { value: 'v' }), 'cache put');
  const queue = `/3/projects/${projectId}/queues`;
  ok(await http.put(`${queue}/fuzz-target`, {}), 'queue create');
  const posted = ok(
    await http.post(`${queue}/fuzz-queue/messages`, { messages: [{ body: 'a' }, { body: 'b' }] }),
    'post',
  );
  ok(
    await http.post(`/1/projects/${projectId}/queues/fuzz-queue/alerts`, {
      alerts: [{ type: 'fixed', trigger: 5, queue: 'fuzz-target' }],
    }),
    'alert',
  );
  const codeId = await uploadCode(http, projectId);
  const worker = `/2/projects/${projectId}`;
  const task = ok(await http.post(`${worker}/tasks`, { tasks: [{ code_name: 'fuzz-code', payload: '{}' }] }), 'task');
  const schedule = ok(
    await http.post(`${worker}/schedules`, { schedules: [{ code_name: 'fuzz-code', run_every: 3600, payload: '' }] }),
    'schedule',
  );
  const cluster = ok(await http.post('/2/clusters', { name: `${label}-cluster` }), 'cluster').body.cluster.id as string;
  const runner = ok(await http.post(`/2/clusters/${cluster}/tokens`), 'runner token').body.token;
  const apps = await createApps(http, projectId, label);
  const spareToken = ok(await http.post('/1/tokens', { name: 'spare' }), 'token').body._id as string;
  const alertId = (await alertIdOf(http, projectId)) ?? 'none';
  return {
    tenant,
    runnerToken: runner.token,
    params: {
      project_id: [projectId],
      user_id_or_email: [other.id, other.email, tenant.email],
      token_id: [spareToken, runner.id],
      cache_name: ['fuzz-cache'],
      key: ['fuzz-key'],
      queue_name: ['fuzz-queue', 'fuzz-target'],
      message_id: [...(posted.body.ids as string[])],
      subscriber_id: ['s1'],
      alert_id: [alertId],
      code_id: [codeId],
      task_id: [task.body.tasks[0].id],
      schedule_id: [schedule.body.schedules[0].id],
      cluster_id: [cluster, 'default'],
      instance_id: ['fuzz-instance'],
      app: [apps.managed],
      call_id: [apps.callId],
      '*': ['fuzz', 'fuzz/deeper'],
    },
    callParams: { app: [apps.called], '*': ['fuzz', 'fuzz/', 'nope'] },
  };
}

async function uploadCode(http: HttpClient, projectId: string): Promise<string> {
  const zip = await zipOf({ 'run.sh': 'true' });
  const form = uploadForm({ name: 'fuzz-code', image: 'busybox', command: 'sh run.sh' }, zip);
  return ok(await http.post(`/2/projects/${projectId}/codes`, undefined, { raw: form }), 'code upload').body.id;
}

/** Two apps: one the management routes may change at will, one only called through /r/ (its 1 s route stays). */
async function createApps(http: HttpClient, projectId: string, label: string) {
  const managed = `${label}-app`;
  const called = `${label}-calls`;
  for (const name of [managed, called]) {
    ok(await http.post('/v1/apps', { app: { name, project_id: projectId } }), 'app');
    ok(await http.post(`/v1/apps/${name}/routes`, { route: { path: '/fuzz', image: 'busybox', timeout: 1 } }), 'route');
  }
  const route = { path: '/async', image: 'busybox', timeout: 1, type: 'async' };
  ok(await http.post(`/v1/apps/${managed}/routes`, { route }), 'async route');
  const call = ok(await http.request('POST', `/r/${managed}/async`, { token: null, raw: 'x' }), 'async call');
  return { managed, called, callId: call.body.call_id as string };
}

async function alertIdOf(http: HttpClient, projectId: string): Promise<string | undefined> {
  const queue = await http.get(`/1/projects/${projectId}/queues/fuzz-queue`);
  return queue.body?.alerts?.[0]?.id;
}

/** True while the tenant's token works and its project and fixtures are there (a generated DELETE may remove them). */
export async function worldIntact(world: FuzzWorld): Promise<boolean> {
  const { http, projectId } = world.tenant;
  const checks = await Promise.all([
    http.get(`/1/projects/${projectId}`),
    http.get(`/1/projects/${projectId}/caches/fuzz-cache/items/fuzz-key`),
    http.get(`/3/projects/${projectId}/queues/fuzz-queue`),
    http.get(`/2/projects/${projectId}/codes/${world.params.code_id![0]}`),
    http.get(`/v1/apps/${world.params.app![0]}`),
  ]);
  return checks.every((response) => response.status === 200);
}

/** The server still serves others: a control tenant's cache round trip and queue post and reserve work. */
export async function expectControlTenantServed(control: Tenant): Promise<void> {
  const item = `/1/projects/${control.projectId}/caches/control/items/k`;
  expect((await control.http.put(item, { value: 'still here' })).status).toBe(200);
  const read = await control.http.get(item);
  expect(read.status, read.text).toBe(200);
  expect(read.body.value).toBe('still here');
  const queue = `/3/projects/${control.projectId}/queues/control-${Date.now()}`;
  const posted = await control.http.post(`${queue}/messages`, { messages: [{ body: 'ping' }] });
  expect(posted.status, posted.text).toBe(201);
  const reserved = await control.http.post(`${queue}/reservations`, { n: 1 });
  expect(reserved.status, reserved.text).toBe(200);
  expect(reserved.body.messages.map((message: { body: string }) => message.body)).toEqual(['ping']);
}
