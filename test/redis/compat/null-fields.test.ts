import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/test-file.js';
import { useWorkerClient } from '../../helpers/worker-test-file.js';
import { createRunnerToken } from '../../helpers/worker.js';
import { bodyValidatorOf, routeBodiesOf, type RouteBody } from '../../../controller/http/validation.js';
import { blamesNullField, errorMessageOf, nullBodyOf, type NullStyle } from '../../helpers/null-bodies.js';
import { uniqueQueue } from '../../helpers/mq.js';

// Issue 32: official clients send unset fields as null (iron_worker_python posts
// `"label": null, "cluster": null` with every task). Null means "not given" on every API.
const server = useTestServer();
const worker = useWorkerClient(server, { name: 'nulls', image: 'ferrum-test/busybox', command: 'true' });
let walkProject: string;
let runnerToken: string;

beforeAll(async () => {
  const created = await server.http.post('/1/projects', { name: 'null-walk' });
  walkProject = created.body.id;
  runnerToken = (await createRunnerToken(server)).token;
});

const run = promisify(execFile);

/** Runs a Python 3 script (Debian's, with requests) that prints one JSON line; returns it parsed. */
async function python(script: string, env: Record<string, string>): Promise<any> {
  const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: { ...process.env, ...env } });
  return JSON.parse(stdout);
}

describe("the Python worker client's task and schedule posts (every field, unset ones null)", () => {
  // The request as iron_worker_python 1.3 (over iron_core_python) makes it: its headers and the
  // body it builds for a task, with label and cluster left unset.
  const script = String.raw`
import json, os, requests
base = os.environ['BASE'] + '/2/projects/' + os.environ['PROJECT'] + '/'
headers = {'Accept': 'application/json', 'User-Agent': 'iron_worker_python (version: 1.3.8)',
           'Authorization': 'OAuth ' + os.environ['TOKEN'], 'Content-Type': 'application/json'}
task = {'name': 'nulls', 'code_name': 'nulls', 'payload': json.dumps({'x': 1}), 'priority': 0, 'delay': 3600,
        'label': None, 'cluster': None, 'sync': False}
tasks = requests.post(base + 'tasks', data=json.dumps({'tasks': [dict(task, timeout=3600)]}), headers=headers)
schedule = dict(task, run_every=3600, start_at='2099-01-01T00:00:00+00:00')
schedules = requests.post(base + 'schedules', data=json.dumps({'schedules': [schedule]}), headers=headers)
print(json.dumps({'tasks': [tasks.status_code, tasks.headers['Content-Type'], tasks.json()],
                  'schedules': [schedules.status_code, schedules.headers['Content-Type'], schedules.json()]}))
`;

  it('queues the task and creates the schedule; both answers are exactly application/json', async () => {
    const answers = await python(script, { BASE: server.url, PROJECT: server.projectId, TOKEN: server.token });
    expect(answers.tasks.slice(0, 2)).toEqual([200, 'application/json']);
    const task = await worker.task(answers.tasks[2].tasks[0].id);
    expect(task).toMatchObject({ code_name: 'nulls', status: 'queued', priority: 0 });
    expect(task.label ?? '').toBe('');
    expect(answers.schedules.slice(0, 2)).toEqual([200, 'application/json']);
    expect(answers.schedules[2].schedules[0].id).toEqual(expect.any(String));
  });
});

describe('null on a required field is a missing field (406 naming it)', () => {
  it('tasks[0].code_name, tasks, messages[0].body, cache amount and value, app name, dead letter queue_name', async () => {
    const cases: [string, string, unknown, number, string][] = [
      [
        'POST',
        worker.path('/tasks'),
        { tasks: [{ code_name: null, payload: 'x' }] },
        406,
        'tasks[0].code_name is required',
      ],
      ['POST', worker.path('/tasks'), { tasks: null }, 406, 'tasks is required'],
      [
        'POST',
        `/3/projects/${server.projectId}/queues/${uniqueQueue('nulls')}/messages`,
        { messages: [{ body: null }] },
        406,
        'messages[0].body is required',
      ],
      [
        'POST',
        `/1/projects/${server.projectId}/caches/c/items/k/increment`,
        { amount: null },
        406,
        'amount is required',
      ],
      ['PUT', `/1/projects/${server.projectId}/caches/c/items/k`, { value: null, cas: null }, 406, 'value is required'],
      // The functions API answers every schema failure 400, in its own error shape.
      ['POST', '/v1/apps', { app: { name: null } }, 400, 'app.name is required'],
      [
        'PUT',
        `/3/projects/${server.projectId}/queues/${uniqueQueue('nulls')}`,
        { queue: { dead_letter: { queue_name: null } } },
        406,
        'queue.dead_letter.queue_name is required',
      ],
    ];
    for (const [method, path, body, status, msg] of cases) {
      const response = await server.http.request(method, path, { body });
      expect([response.status, errorMessageOf(response.body)], path).toEqual([status, msg]);
    }
  });
});

describe('a body of JSON null is no body', () => {
  it('counts as {} where a body is optional, and as missing where one is needed', async () => {
    const queue = uniqueQueue('null-body');
    await server.http.put(`/3/projects/${server.projectId}/queues/${queue}`, {});
    const raw = { raw: 'null', headers: { 'Content-Type': 'application/json' } };
    const reserved = await server.http.post(
      `/3/projects/${server.projectId}/queues/${queue}/reservations`,
      undefined,
      raw,
    );
    expect([reserved.status, reserved.body]).toEqual([200, { messages: [] }]);
    const tasks = await server.http.post(worker.path('/tasks'), undefined, raw);
    expect([tasks.status, tasks.body.msg]).toEqual([406, 'tasks is required']);
  });
});

describe('bodies read by hand treat null as not given too', () => {
  it('v3 queue settings, push subscribers, dead letter and alerts; v1 update; v3 message push_headers', async () => {
    const queue = uniqueQueue('nulls-hand');
    const created = await server.http.put(`/3/projects/${server.projectId}/queues/${queue}`, {
      queue: {
        type: null,
        message_timeout: null,
        message_expiration: null,
        push: null,
        dead_letter: null,
        alerts: null,
      },
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body.queue).toMatchObject({ type: 'pull', message_timeout: 60 });
    const deadLetter = await server.http.patch(`/3/projects/${server.projectId}/queues/${queue}`, {
      queue: { dead_letter: { queue_name: `${queue}-dead`, max_reservations: null }, alerts: null },
    });
    expect(deadLetter.status, deadLetter.text).toBe(200);
    expect(deadLetter.body.queue.dead_letter).toMatchObject({ queue_name: `${queue}-dead` });
    const pushQueue = uniqueQueue('nulls-hand');
    const push = await server.http.put(`/3/projects/${server.projectId}/queues/${pushQueue}`, {
      queue: {
        type: 'multicast',
        push: {
          subscribers: [{ name: 's', url: 'http://127.0.0.1:9/x', headers: null }],
          retries: null,
          retries_delay: null,
          error_queue: null,
          rate: null,
        },
      },
    });
    expect(push.status, push.text).toBe(200);
    expect(push.body.queue.push.subscribers).toEqual([{ name: 's', url: 'http://127.0.0.1:9/x' }]);
    const v1 = await server.http.post(`/1/projects/${server.projectId}/queues/${pushQueue}`, {
      push_type: null,
      subscribers: null,
      retries: null,
      retries_delay: null,
    });
    expect(v1.status, v1.text).toBe(200);
    const pull = uniqueQueue('nulls-hand');
    const posted = await server.http.post(`/3/projects/${server.projectId}/queues/${pull}/messages`, {
      messages: [{ body: 'x', delay: null, push_headers: null }],
    });
    expect(posted.status, posted.text).toBe(201);
  });

  it("a code upload's data part: nulls are not given; a null name is missing (406)", async () => {
    const id = await worker.upload({
      name: 'nulls-data',
      image: 'ferrum-test/busybox',
      command: 'true',
      stack: null,
      config: null,
      max_concurrency: null,
      retries: null,
      retries_delay: null,
      default_priority: null,
      env_vars: { KEPT: 'x', DROPPED: null },
    });
    const code = (await server.http.get(worker.path(`/codes/${id}`))).body;
    expect(code).toMatchObject({ name: 'nulls-data', image: 'ferrum-test/busybox', env_vars: { KEPT: 'x' } });
    expect(code.env_vars).toEqual({ KEPT: 'x' });
    expect(code.config).toBeUndefined();
    const form = new FormData();
    form.append('data', JSON.stringify({ name: null, image: 'ferrum-test/busybox' }));
    const refused = await server.http.post(worker.path('/codes'), undefined, { raw: form });
    expect([refused.status, refused.body.msg]).toEqual([406, 'name is required']);
  });
});

/** A route's path with its parameters filled in: the walk's own project, the default cluster, names that exist nowhere. */
function concretePath(url: string): string {
  return (
    url
      .replace(':project_id', walkProject)
      .replace(/^\/runner\/v1\/clusters\/:cluster_id/, '/runner/v1/clusters/default')
      .replace(/:[a-z_]+/g, 'nulls-walk')
      .replace('*', 'nulls-walk')
      // The functions API needs the project named when the user has several.
      .replace(/^\/v1\/.*/, (path) => `${path}?project_id=${walkProject}`)
  );
}

function methodsOf(route: RouteBody): string[] {
  return (Array.isArray(route.method) ? route.method : [route.method]).filter((method) => method !== 'HEAD');
}

describe('every route with a body schema accepts null for each optional field', () => {
  const styles: NullStyle[] = ['shallow', 'deep'];

  it('the app declares body schemas on the APIs the walk is meant to cover', () => {
    const urls = routeBodiesOf(server.running.app).map((route) => route.url);
    for (const prefix of ['/1/', '/2/', '/3/', '/v1/', '/runner/v1/'])
      expect(
        urls.some((url) => url.startsWith(prefix)),
        prefix,
      ).toBe(true);
    expect(urls).toContain('/2/projects/:project_id/tasks');
  });

  it("by schema: no route's body check fails on a field sent as null", () => {
    for (const route of routeBodiesOf(server.running.app)) {
      const validate = bodyValidatorOf(route.schema);
      for (const style of styles) {
        const { body, nulled } = nullBodyOf(route.schema as object, style);
        validate(structuredClone(body));
        const error = validate.errors?.[0];
        const path = error
          ? error.instancePath
              .replaceAll(/\/(\d+)/g, '[$1]')
              .replaceAll('/', '.')
              .replace(/^\./, '')
          : '';
        expect(nulled.includes(path) && path !== '', `${route.url} ${style}: ${JSON.stringify(error)}`).toBe(false);
      }
    }
  });

  it('over HTTP: no route answers 400 naming a field sent as null, nor 5xx', async () => {
    const refused: string[] = [];
    for (const route of routeBodiesOf(server.running.app)) {
      const path = concretePath(route.url);
      const runner = path.startsWith('/runner/');
      const http = runner ? server.http.withToken(null) : server.http;
      const headers: Record<string, string> = runner ? { Authorization: `Bearer ${runnerToken}` } : {};
      for (const method of methodsOf(route)) {
        for (const style of styles) {
          const { body, nulled } = nullBodyOf(route.schema as object, style);
          const response = await http.request(method, path, { body, headers });
          if (response.status >= 500 || (response.status === 400 && blamesNullField(response.body, nulled)))
            refused.push(`${method} ${route.url} (${style}): ${response.status} ${response.text}`);
        }
      }
    }
    expect(refused).toEqual([]);
  });
});
