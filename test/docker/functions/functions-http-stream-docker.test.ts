import Docker from 'dockerode';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { HOT_LABELS } from '../../../runner/functions/hot-function-pool.js';
import { FunctionsClient } from '../../helpers/functions.js';
import { madeOnFirstUse } from '../../helpers/read-through.js';
import { FAST_WORKER_ENV } from '../../helpers/worker.js';
import { useRunner, workerTestFile } from '../../helpers/worker-test-file.js';
import type { HotEcho } from '../../helpers/hot-echo.js';
import { scaled } from '../../helpers/pace.js';

// Hot calls of `http-stream` routes end to end: /r/ on a controller, a runner taking the calls
// from Redis, the reference function image ferrum-test/fn-hot-stream on a socket.
const ENV = {
  ...FAST_WORKER_ENV,
  FERRUM_FUNCTIONS_BODY_LIMIT: String(8 * 1024 * 1024),
  FERRUM_FUNCTIONS_BUSY_WAIT_MS: '3000',
  FERRUM_FUNCTIONS_MAX_WAITING_CALLS: '20',
  // The route's bound, not the runner's, is what refuses calls here.
  FERRUM_FUNCTIONS_RUNNER_SLOTS: '40',
  FERRUM_FUNCTIONS_PROJECT_SLOTS: '40',
};
const APP = 'streams';
const IMAGE = 'ferrum-test/fn-hot-stream';

const docker = new Docker();
const { server } = workerTestFile(ENV);
const runner = useRunner(server, ENV);
const fn = madeOnFirstUse(() => new FunctionsClient(server.http));
let routes = 0;

beforeAll(async () => {
  await server.http.post('/v1/apps', { app: { name: APP, config: { GREETING: 'hello' } } });
});

/** A new http-stream route of the reference image; its path. */
async function newRoute(settings: Record<string, unknown> = {}): Promise<string> {
  const path = `/s${++routes}`;
  await fn.route(APP, { path, image: IMAGE, format: 'http-stream', timeout: 10, idle_timeout: 30, ...settings });
  return path;
}

function containersOf(path: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({
    all: true,
    filters: { label: [`${HOT_LABELS.function}=${APP}${path}`, `ferrum.runner=${runner.id}`] },
  });
}

interface Echo extends HotEcho {
  env: Record<string, string>;
}

async function call(path: string, body = 'ping', headers: Record<string, string> = {}) {
  return fn.call('POST', `${APP}${path}`, body, { 'Content-Type': 'text/plain', ...headers });
}

function echoOf(response: { status: number; text: string }): Echo {
  expect(response.status, response.text).toBe(200);
  return JSON.parse(response.text) as Echo;
}

describe('http-stream routes', () => {
  it('get the call over the socket: body, method, URL, headers, call id, deadline, FN_ variables', async () => {
    const path = await newRoute({ memory: 96 });
    const response = await fn.call('PUT', `${APP}${path}?q=1`, 'hello', {
      'Content-Type': 'text/plain',
      'X-Echo': 'e1',
    });
    const echo = echoOf(response);
    const callId = response.headers.get('fn-call-id')!;
    expect(echo).toMatchObject({ calls: 1, method: 'PUT', body: 'hello', echo: 'e1', greeting: 'hello', callId });
    expect(echo.url).toBe(`${server.url}/r/${APP}${path}?q=1`);
    expect(Date.parse(echo.deadline)).toBeGreaterThan(Date.now());
    expect(echo.env).toEqual({ app: APP, fn: `${APP}${path}`, memory: '96', type: 'sync' });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('fn-fdk-version')).toBeNull();
    expect(await fn.waitFor(APP, callId, ['success'])).toMatchObject({ status: 'success', format: 'http-stream' });
  });

  it('answer with the status and headers the function sets (Fn-Http-Status, Fn-Http-H-*)', async () => {
    const path = await newRoute();
    const response = await call(path, 'x', { 'X-Status': '418', 'X-Header': 'X-Custom: yes indeed' });
    expect(response.status).toBe(418);
    expect(response.headers.get('x-custom')).toBe('yes indeed');
  });

  it('carry large bodies both ways unchanged', async () => {
    const path = await newRoute();
    const large = Buffer.alloc(5 * 1024 * 1024);
    for (let i = 0; i < large.length; i++) large[i] = (i * 7919) % 251;
    const response = await fetch(`${server.url}/r/${APP}${path}`, {
      method: 'POST',
      body: large,
      headers: { 'Content-Type': 'application/octet-stream', 'X-Raw': '1' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await response.arrayBuffer()).equals(large)).toBe(true);
  });

  it('reuse their container, serve concurrent calls within max_concurrency, and answer each', async () => {
    const path = await newRoute({ max_concurrency: 3 });
    const first = echoOf(await call(path));
    expect(echoOf(await call(path))).toMatchObject({ calls: 2, hostname: first.hostname });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call(path, `body-${i}`, { 'X-Sleep-Ms': '50' })),
    );
    const echoes = answers.map(echoOf);
    expect(echoes.map((echo) => echo.body).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `body-${i}`).sort());
    expect(new Set(echoes.map((echo) => echo.hostname)).size).toBeLessThanOrEqual(3);
    expect((await containersOf(path)).length).toBeLessThanOrEqual(3);
  });

  it('replace a container that crashed mid-call: 502 with the exit code, then a fresh one answers', async () => {
    const path = await newRoute();
    const before = echoOf(await call(path));
    const crashed = await call(path, 'x', { 'X-Exit': '3', 'X-Stderr': 'giving up' });
    expect(crashed.status).toBe(502);
    expect(crashed.body.error.message).toBe('the function container exited with code 3');
    const crashId = crashed.headers.get('fn-call-id')!;
    expect(await fn.waitFor(APP, crashId, ['error'])).toMatchObject({ status: 'error' });
    expect(await fn.log(APP, crashId)).toBe('giving up\n');
    const after = echoOf(await call(path));
    expect(after.calls).toBe(1);
    expect(after.hostname).not.toBe(before.hostname);
    await vi.waitFor(async () => expect(await containersOf(path)).toHaveLength(1), { timeout: 10_000, interval: 100 });
  });

  it("answer 504 once a call overruns its route's timeout, a shortened timeout too, and replace the container", async () => {
    const path = await newRoute({ timeout: 30 });
    const before = echoOf(await call(path));
    // The timeout is no part of the containers' identity: the same container serves the next call.
    const patched = await server.http.request('PATCH', `/v1/apps/${APP}/routes${path}`, {
      body: { route: { timeout: 1 } },
    });
    expect(patched.status, patched.text).toBe(200);
    const started = Date.now();
    const overran = await call(path, 'slow', { 'X-Sleep-Ms': '4000' });
    expect(overran.status).toBe(504);
    expect(overran.body.error.message).toBe('the function did not answer within 1000 ms');
    expect(Date.now() - started, "the shorter timeout, not the earlier call's").toBeLessThan(3900);
    const after = echoOf(await call(path));
    expect(after.hostname).not.toBe(before.hostname);
  });

  it('stop their containers after idle_timeout', async () => {
    const path = await newRoute({ idle_timeout: 1 });
    echoOf(await call(path));
    expect(await containersOf(path)).toHaveLength(1);
    await vi.waitFor(async () => expect(await containersOf(path)).toHaveLength(0), { timeout: 10_000, interval: 100 });
    expect(echoOf(await call(path)).calls).toBe(1);
  });

  it("keep each call's log complete and with that call, however calls interleave", async () => {
    const path = await newRoute({ max_concurrency: 2 });
    await Promise.all([call(path), call(path)]);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(path, 'x', { 'X-Stderr': `line of call ${i}` })),
    );
    for (const [i, answer] of answers.entries()) {
      expect(answer.status).toBe(200);
      const callId = answer.headers.get('fn-call-id')!;
      await fn.waitFor(APP, callId, ['success']);
      expect(await fn.log(APP, callId)).toBe(`line of call ${i}\n`);
    }
  });

  it('keep stderr that comes after the answer with its call while the container serves no other', async () => {
    const path = await newRoute({ max_concurrency: 1 });
    await call(path);
    // Written well after the answer, as a busy engine relays stderr: past any settle wait.
    const late = await call(path, 'x', { 'X-Stderr': 'relayed after the answer', 'X-Stderr-After-Ms': '600' });
    expect(late.status).toBe(200);
    const lateId = late.headers.get('fn-call-id')!;
    await fn.waitFor(APP, lateId, ['success']);
    expect(await fn.log(APP, lateId)).toBe('relayed after the answer\n');
    const next = await call(path, 'x', { 'X-Stderr': 'the next call' });
    const nextId = next.headers.get('fn-call-id')!;
    await fn.waitFor(APP, nextId, ['success']);
    expect(await fn.log(APP, nextId)).toBe('the next call\n');
  });

  it('refuse calls beyond the bounded wait with 503 and Retry-After, and serve the rest', async () => {
    const path = await newRoute({ max_concurrency: 1 });
    // The route's only container starts for this call, which waits for it first: every later
    // call queues behind it (no idle container exists for one to take first).
    const busy = call(path, 'slow', { 'X-Sleep-Ms': '9000' });
    await vi.waitFor(async () => expect((await containersOf(path)).length).toBe(1), { timeout: scaled(10_000) });
    // 20 may wait (each at most 3 s, less than the busy call takes); the other 10 are refused at once.
    const started = Date.now();
    const crowd = await Promise.all(Array.from({ length: 30 }, () => call(path)));
    for (const refused of crowd) {
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
    }
    const messages = crowd.map((refused) => refused.body.error.message as string);
    expect(messages.filter((message) => /calls wait already/.test(message)).length).toBeGreaterThanOrEqual(10);
    expect(messages.filter((message) => /came free within 3000 ms/.test(message)).length).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(scaled(8000));
    expect(echoOf(await busy).body).toBe('slow');
    expect(echoOf(await call(path)).calls).toBeGreaterThan(1);
  });

  it('fail with 502 naming the cause when the image does not listen on the socket', async () => {
    const path = await newRoute({ image: 'ferrum-test/fn-cold-echo' });
    const response = await call(path);
    expect(response.status).toBe(502);
    expect(response.body.error.message).toMatch(/could not start the function: .*before listening on its socket/);
  });
});

describe('an all-in-one server', () => {
  it('hands calls with an idle hot container to its own runner, and still records them with their log', async () => {
    const path = await newRoute();
    const warm = echoOf(await call(path));
    server.running.ctx.localFunctions.runner = runner.localFunctions;
    try {
      const response = await call(path, 'here', { 'X-Stderr': 'logged here' });
      expect(echoOf(response)).toMatchObject({ body: 'here', hostname: warm.hostname, calls: 2 });
      const callId = response.headers.get('fn-call-id')!;
      const record = await fn.waitFor(APP, callId, ['success']);
      expect(record).toMatchObject({
        id: callId,
        app_name: APP,
        path,
        status: 'success',
        format: 'http-stream',
        type: 'sync',
      });
      expect(record).not.toHaveProperty('error');
      const times = [record.created_at, record.started_at, record.completed_at].map((time) => Date.parse(String(time)));
      expect(times.every(Number.isFinite)).toBe(true);
      expect(times[0]! <= times[1]! && times[1]! <= times[2]!).toBe(true);
      expect(await fn.log(APP, callId)).toBe('logged here\n');
      // A call that fails here is recorded with its error and its log too.
      const crashed = await call(path, 'x', { 'X-Exit': '3', 'X-Stderr': 'giving up here' });
      expect(crashed.status).toBe(502);
      const crashId = crashed.headers.get('fn-call-id')!;
      const failed = await fn.waitFor(APP, crashId, ['error']);
      expect(failed).toMatchObject({ error: 'the function container exited with code 3', path });
      expect(await fn.log(APP, crashId)).toBe('giving up here\n');
    } finally {
      server.running.ctx.localFunctions.runner = null;
    }
  });
});
