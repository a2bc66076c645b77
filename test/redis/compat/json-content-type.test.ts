import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/test-file.js';
import { cachePaths, uniqueCacheName } from '../../helpers/cache.js';
import { uniqueQueue } from '../../helpers/mq.js';
import { createRunnerToken, WorkerClient } from '../../helpers/worker.js';

// Issue 32: JSON answers say exactly `Content-Type: application/json` (RFC 8259 defines no
// charset; iron_mq_java reads an error's message only when the type equals that string and a
// Content-Length is given). Every answer here goes over a real socket.
const server = useTestServer();
let runnerToken: string;
let taskId: string;

beforeAll(async () => {
  const worker = new WorkerClient(server.http, server.projectId);
  await worker.upload({ name: 'types', image: 'ferrum-test/busybox', command: 'true' });
  taskId = await worker.queue('types', 'x', { delay: 3600 });
  runnerToken = (await createRunnerToken(server)).token;
});

interface Probe {
  what?: string;
  method?: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
  token?: string | null;
}

async function send({ method = 'GET', path, body, headers = {}, token }: Probe): Promise<Response> {
  const auth: Record<string, string> = token === null ? {} : { Authorization: token ?? `OAuth ${server.token}` };
  return fetch(server.url + path, { method, body, headers: { ...auth, ...headers } });
}

describe('every JSON answer is exactly application/json, with its length', () => {
  it('answers of each API, and of routes that send JSON text they build themselves', async () => {
    const project = server.projectId;
    const queue = uniqueQueue('types');
    const cache = cachePaths(project, uniqueCacheName('types'));
    const json = { 'Content-Type': 'application/json' };
    await send({
      method: 'POST',
      path: `/3/projects/${project}/queues/${queue}/messages`,
      headers: json,
      body: '{"messages":[{"body":"a"},{"body":"b"}]}',
    });
    await send({ method: 'PUT', path: cache.item('n'), headers: json, body: '{"value":1}' });
    const probes: Probe[] = [
      { what: 'health', path: '/health', token: null },
      { what: 'identity', path: `/1/projects/${project}` },
      { what: 'cache item (JSON text)', path: cache.item('n') },
      {
        what: 'cache increment (JSON text)',
        method: 'POST',
        path: `${cache.item('n')}/increment`,
        headers: json,
        body: '{"amount":2}',
      },
      {
        what: 'mq v3 reserve (JSON text)',
        method: 'POST',
        path: `/3/projects/${project}/queues/${queue}/reservations`,
        headers: json,
        body: '{"n":1}',
      },
      { what: 'mq v3 queue', path: `/3/projects/${project}/queues/${queue}` },
      { what: 'mq v1 messages', path: `/1/projects/${project}/queues/${queue}/messages` },
      { what: 'worker task', path: `/2/projects/${project}/tasks/${taskId}` },
      { what: 'clusters', path: '/2/clusters' },
      { what: 'history', path: `/1/projects/${project}/history` },
      { what: 'functions apps', path: `/v1/apps?project_id=${project}` },
      { what: 'runner token', path: '/runner/v1/token', token: `Bearer ${runnerToken}` },
    ];
    for (const probe of probes) {
      const response = await send(probe);
      expect(response.status, probe.what).toBeLessThan(300);
      expect(response.headers.get('content-type'), probe.what).toBe('application/json');
      JSON.parse(await response.text());
    }
  });

  it('error answers: auth, unknown routes, methods, validation, framework and router errors, each API', async () => {
    const project = server.projectId;
    const json = { 'Content-Type': 'application/json' };
    const probes: (Probe & { status: number })[] = [
      { what: 'no token', path: `/3/projects/${project}/queues`, token: null, status: 401 },
      { what: 'unknown route', path: '/nowhere', status: 404 },
      { what: 'wrong method', method: 'PATCH', path: '/2/clusters', status: 405 },
      {
        what: 'missing field',
        method: 'POST',
        path: `/2/projects/${project}/tasks`,
        headers: json,
        body: '{}',
        status: 406,
      },
      {
        what: 'wrong type',
        method: 'POST',
        path: `/2/projects/${project}/tasks`,
        headers: json,
        body: '{"tasks":[{"code_name":"types","payload":1}]}',
        status: 400,
      },
      {
        what: 'invalid JSON',
        method: 'POST',
        path: `/3/projects/${project}/queues/q/messages`,
        headers: json,
        body: '{"messages":',
        status: 400,
      },
      {
        what: 'body too large',
        method: 'POST',
        path: '/1/projects',
        headers: json,
        body: `{"name":"${'x'.repeat(70_000)}"}`,
        status: 413,
      },
      { what: 'bad %-escape', path: `/3/projects/${project}/queues/%zz`, status: 400 },
      { what: 'missing queue', path: `/3/projects/${project}/queues/${uniqueQueue('none')}`, status: 404 },
      { what: 'functions error', path: `/v1/apps/none?project_id=${project}`, status: 404 },
      { what: 'runner API refusal', path: '/runner/v1/token', token: 'Bearer nope', status: 401 },
    ];
    for (const probe of probes) {
      const response = await send(probe);
      expect(response.status, probe.what).toBe(probe.status);
      expect(response.headers.get('content-type'), probe.what).toBe('application/json');
      expect(Number(response.headers.get('content-length')), probe.what).toBeGreaterThan(0);
      JSON.parse(await response.text());
    }
  });

  it('answers that are not JSON keep their own types', async () => {
    expect((await send({ path: '/metrics', token: null })).headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await send({ path: '/', token: null })).headers.get('content-type')).toMatch(/^text\/html/);
    const log = await send({ path: `/2/projects/${server.projectId}/tasks/${taskId}/log` });
    expect(log.status).toBe(200);
    expect(log.headers.get('content-type')).toMatch(/^text\/plain/);
  });
});
