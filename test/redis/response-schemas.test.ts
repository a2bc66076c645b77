import { Ajv } from 'ajv';
import Router, { type HTTPMethod } from 'find-my-way';
import { describe, expect, it } from 'vitest';
import { routeListOf } from '../../controller/http/route-list.js';
import { useTestServer } from '../helpers/test-file.js';
import { FAST_WORKER_ENV } from '../helpers/worker.js';
import { useWorkerClient } from '../helpers/worker-test-file.js';

// The response schemas declare `required` for what each handler always sends, and the shared
// client's answer types (client/responses.ts) trust them: every answer below must hold its
// schema's required fields, with the schema's types, as the server sent it.

const server = useTestServer(FAST_WORKER_ENV);
const worker = useWorkerClient(server);
const ajv = new Ajv({ strict: false });

/** The response schema (by status) of the route `method path` reaches. */
function responseSchemaOf(method: string, path: string): Record<string, unknown> | undefined {
  const router = Router();
  for (const { method: methods, url, schema } of routeListOf(server.running.app)) {
    for (const each of Array.isArray(methods) ? methods : [methods]) {
      if (url === '*' || url === '/*' || router.hasRoute(each as HTTPMethod, url)) continue;
      router.on(each as HTTPMethod, url, () => undefined, { response: schema?.response });
    }
  }
  const found = router.find(method as HTTPMethod, path.split('?')[0]!);
  return (found?.store as { response?: Record<string, unknown> } | undefined)?.response;
}

async function expectMatches(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
  const response = await server.http.request(method, path, body === undefined ? {} : { body });
  expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
  const schema = responseSchemaOf(method, path)?.[String(response.status)];
  expect(schema, `${method} ${path} declares a response schema`).toBeDefined();
  const validate = ajv.compile(schema as object);
  expect(validate(response.body), `${method} ${path}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  return response.body;
}

describe('answers hold their response schemas, required fields included', () => {
  it('worker: codes, revisions, tasks, schedules', async () => {
    const codeId = await worker.upload({ name: 'schema-code', image: 'ferrum-test/busybox' });
    await expectMatches('GET', worker.path('/codes'));
    await expectMatches('GET', worker.path(`/codes/${codeId}`));
    await expectMatches('GET', worker.path(`/codes/${codeId}/revisions`));
    const queued = await expectMatches('POST', worker.path('/tasks'), {
      tasks: [{ code_name: 'schema-code', payload: '{}' }],
    });
    await expectMatches('GET', worker.path(`/tasks/${queued.tasks[0].id}`));
    await expectMatches('GET', worker.path('/tasks'));
    const schedules = await expectMatches('POST', worker.path('/schedules'), {
      schedules: [{ code_name: 'schema-code', payload: '{}', run_every: 3600, run_times: 2 }],
    });
    await expectMatches('GET', worker.path(`/schedules/${schedules.schedules[0].id}`));
  });

  it('clusters and their runner tokens', async () => {
    const created = await expectMatches('POST', '/2/clusters', { name: 'schema-cluster' });
    const id = created.cluster.id;
    await expectMatches('GET', '/2/clusters');
    await expectMatches('GET', `/2/clusters/${id}`);
    await expectMatches('GET', `/2/clusters/${id}/stats`);
    await expectMatches('GET', `/2/clusters/${id}/runners`);
    await expectMatches('POST', `/2/clusters/${id}/tokens`);
    await expectMatches('GET', `/2/clusters/${id}/tokens`);
  });

  it('message queue, cache and identity', async () => {
    const project = `/3/projects/${server.projectId}`;
    await expectMatches('PUT', `${project}/queues/schema-q`, { queue: {} });
    await expectMatches('GET', `${project}/queues/schema-q`);
    const posted = await expectMatches('POST', `${project}/queues/schema-q/messages`, { messages: [{ body: 'x' }] });
    await expectMatches('GET', `${project}/queues/schema-q/messages/${posted.ids[0]}`);
    const cache = `/1/projects/${server.projectId}/caches`;
    await server.http.put(`${cache}/schema-c/items/k`, { value: 'v' });
    await expectMatches('GET', cache);
    await expectMatches('GET', `${cache}/schema-c`);
    await expectMatches('GET', `/1/projects/${server.projectId}`);
  });
});
