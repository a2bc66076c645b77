import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { newObjectId } from '../../../src/core/ids.js';
import { encodeCallMessage } from '../../../src/functions/calls/call-message.js';
import { invocationOf } from '../../../src/functions/calls/invocation.js';
import { FunctionsClient } from '../../helpers/functions.js';
import { madeOnFirstUse } from '../../helpers/read-through.js';
import { FAST_WORKER_ENV } from '../../helpers/worker.js';
import { useRunner, workerTestFile } from '../../helpers/worker-test-file.js';
import { scaled } from '../../helpers/pace.js';

const ENV = { ...FAST_WORKER_ENV, FERRUM_FUNCTIONS_BODY_LIMIT: String(1024 * 1024) };

const { server } = workerTestFile(ENV);
const runner = useRunner(server, ENV);
const fn = madeOnFirstUse(() => new FunctionsClient(server.http));

beforeAll(async () => {
  await server.http.post('/v1/apps', { app: { name: 'calls', config: { SHARED: 'from-app', APP_ONLY: 'a' } } });
  await fn.route('calls', {
    path: '/echo',
    image: 'ferrum-test/fn-echo',
    headers: { 'X-Route': 'yes' },
    config: { SHARED: 'from-route', ROUTE_ONLY: 'r' },
  });
});

function expectError(response: { status: number; body: any }, status: number, text: string | RegExp) {
  expect(response.status).toBe(status);
  expect(response.body.error.message).toMatch(text);
}

describe('sync calls of default-format routes', () => {
  it('runs the image with the body on stdin, the environment, config merge and the route headers', async () => {
    const response = await fn.call('POST', 'calls/echo?q=1', 'hello', { 'Content-Type': 'text/plain', 'X-Test': 't1' });
    expect(response.status).toBe(200);
    const callId = response.headers.get('fn-call-id')!;
    expect(callId).toMatch(/^[0-9a-f]{24}$/);
    expect(response.headers.get('x-route')).toBe('yes');
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.text.split('\n')).toEqual([
      'body=hello',
      'method=POST fn_method=POST',
      `url=${server.url}/r/calls/echo?q=1`,
      `app=calls route=/echo call=${callId} fn_app=calls`,
      'header=t1 fn_header=t1',
      'config=from-route/a/r fn_config=from-route',
      'memory=128 format=default',
      '',
    ]);

    // Records are written in batches after the answer.
    const record = await fn.waitFor('calls', callId, ['success', 'error', 'timeout']);
    expect(record).toMatchObject({
      id: callId,
      app_name: 'calls',
      path: '/echo',
      status: 'success',
      format: 'default',
      type: 'sync',
    });
    expect(Date.parse(record.started_at)).toBeGreaterThanOrEqual(Date.parse(record.created_at));
    expect(Date.parse(record.completed_at)).toBeGreaterThanOrEqual(Date.parse(record.started_at));
    expect(await fn.log('calls', callId)).toBe(`log of ${callId}\n`);
  });

  it('serves routes of several segments with any method and no body', async () => {
    await fn.route('calls', { path: '/deep/er', image: 'ferrum-test/fn-echo' });
    const response = await fn.call('DELETE', 'calls/deep/er/');
    expect(response.status).toBe(200);
    expect(response.text).toContain('body=\n');
    expect(response.text).toContain('method=DELETE');
    expect(response.text).toContain('route=/deep/er');
  });

  it('answers 502 with a message when the function fails, and records the error', async () => {
    const response = await fn.call('POST', 'calls/echo', 'exit=3');
    expectError(response, 502, 'The function exited with status 3');
    const callId = response.headers.get('fn-call-id')!;
    const record = await fn.waitFor('calls', callId, ['error']);
    expect(record).toMatchObject({ status: 'error', error: 'The function exited with status 3' });
    expect(await fn.log('calls', callId)).toContain('failing on purpose');
  });

  it('answers 504 when the function runs past the route timeout', async () => {
    await fn.route('calls', { path: '/slow', image: 'ferrum-test/fn-echo', timeout: 1 });
    const started = Date.now();
    const response = await fn.call('POST', 'calls/slow', 'sleep=10');
    expectError(response, 504, 'The function timed out after 1 s');
    expect(Date.now() - started).toBeLessThan(scaled(8000));
    expect(await fn.waitFor('calls', response.headers.get('fn-call-id')!, ['timeout'])).toMatchObject({
      status: 'timeout',
    });
  });

  it('enforces the route memory as a container limit', async () => {
    await fn.route('calls', { path: '/alloc', image: 'ferrum-test/fn-alloc', memory: 64 });
    const small = await fn.call('POST', 'calls/alloc', '8');
    expect(small.status).toBe(200);
    expect(small.text).toBe('allocated 8 MiB (1)\n');
    const big = await fn.call('POST', 'calls/alloc', '256');
    expectError(big, 502, 'The function ran out of memory (limit 64 MiB)');
  });

  it.each(['http', 'json'])(
    'serves %s-format routes from a hot container, with the status and headers the function sets',
    async (format) => {
      await fn.route('calls', {
        path: `/hot-${format}`,
        image: `ferrum-test/fn-hot-${format}`,
        format,
        config: { GREETING: 'hi' },
      });
      const first = await fn.call('POST', `calls/hot-${format}?n=1`, 'one', {
        'X-Status': '201',
        'X-Header': 'X-Fn: set',
        'X-Echo': 'e1',
      });
      expect(first.status).toBe(201);
      expect(first.headers.get('x-fn')).toBe('set');
      const callId = first.headers.get('fn-call-id')!;
      const answer = JSON.parse(first.text);
      expect(answer).toMatchObject({ calls: 1, method: 'POST', body: 'one', echo: 'e1', greeting: 'hi', callId });
      const second = await fn.call('POST', `calls/hot-${format}`, 'two');
      expect(second.status).toBe(200);
      expect(JSON.parse(second.text)).toMatchObject({ calls: 2, body: 'two', hostname: answer.hostname });
      expect(await fn.waitFor('calls', callId, ['success'])).toMatchObject({ status: 'success', format });
    },
  );

  it('answers 404 for unknown apps and routes, 413 for a body over the limit', async () => {
    expectError(await fn.call('GET', 'nope/echo'), 404, 'App not found');
    expectError(await fn.call('GET', 'calls/nope'), 404, 'Route not found');
    expectError(
      await fn.call('POST', 'calls/echo', Buffer.alloc(2 * 1024 * 1024, 97), {
        'Content-Type': 'application/octet-stream',
      }),
      413,
      'too large',
    );
  });

  it('passes JSON bodies through raw, unparsed', async () => {
    const response = await fn.call('POST', 'calls/echo', '{"a": [1, 2]}', { 'Content-Type': 'application/json' });
    expect(response.text).toContain('body={"a": [1, 2]}\n');
  });
});

describe('async calls', () => {
  it('answers 202 with the call id at once, then the call completes with its log', async () => {
    await fn.route('calls', { path: '/later', image: 'ferrum-test/fn-echo', type: 'async' });
    const response = await fn.call('POST', 'calls/later', 'sleep=1');
    expect(response.status).toBe(202);
    const callId = response.body.call_id;
    expect(response.headers.get('fn-call-id')).toBe(callId);
    expect((await fn.record('calls', callId)).status).toMatch(/^(queued|running)$/);
    const { redis, functions: stores } = server.running.ctx;
    await fn.waitFor('calls', callId, ['running']);
    const inFlight = await redis.lrange(stores.keys.inFlight('default', runner.id), 0, -1);
    expect(inFlight.some((message) => message.includes(callId))).toBe(true);
    const done = await fn.waitFor('calls', callId, ['success', 'error', 'timeout']);
    expect(done.status).toBe('success');
    expect(await fn.log('calls', callId)).toBe(`log of ${callId}\n`);
    expect(await redis.llen(stores.keys.inFlight('default', runner.id))).toBe(0);

    const list = await server.http.get('/v1/apps/calls/calls?per_page=2');
    expect(list.body.message).toBe('Successfully listed calls');
    expect(list.body.calls[0].id).toBe(callId);
    expect(list.body.calls).toHaveLength(2);
    const older = await server.http.get(`/v1/apps/calls/calls?per_page=2&cursor=${list.body.next_cursor}`);
    expect(older.body.calls[0].id < list.body.calls[1].id).toBe(true);
    const byPage = await server.http.get('/v1/apps/calls/calls?per_page=2&page=1');
    expect(byPage.body.calls.map((call: any) => call.id)).toEqual(older.body.calls.map((call: any) => call.id));
  });

  it('re-runs the calls a runner that stopped heartbeating had taken', async () => {
    const { redis, functions: stores } = server.running.ctx;
    const loaded = await stores.routes.loadRoute('calls', '/echo');
    const callId = newObjectId();
    const request = {
      callId,
      method: 'POST',
      requestUrl: 'http://x/r/calls/echo',
      headers: {},
      body: Buffer.from('orphan'),
    };
    const invocation = invocationOf({ app: loaded.app!, route: loaded.route! }, request);
    const now = Date.now();
    await stores.calls.create({
      id: callId,
      appName: 'calls',
      path: '/echo',
      projectId: server.projectId,
      format: 'default',
      type: 'async',
      status: 'running',
      createdAt: now,
      startedAt: now,
      completedAt: null,
      error: null,
    });
    await redis.lpush(stores.keys.inFlight('default', 'gone-runner'), encodeCallMessage({ invocation }));
    await stores.queue.hold('default', 'gone-runner');

    expect((await fn.waitFor('calls', callId, ['success'])).status).toBe('success');
    expect(await redis.exists(stores.keys.inFlight('default', 'gone-runner'))).toBe(0);
    expect(await redis.sismember(stores.keys.holders('default'), 'gone-runner')).toBe(0);
  });

  it('404s unknown call records and logs', async () => {
    expectError(await server.http.get('/v1/apps/calls/calls/000000000000000000000000'), 404, 'Call not found');
    expectError(await server.http.get('/v1/apps/calls/calls/000000000000000000000000/log'), 404, 'Call not found');
  });
});

describe('routes with a secret', () => {
  const secret = 'route-secret-value';
  const sign = (key: string, expiresIn = '1m') =>
    new SignJWT({ sub: 'caller' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(expiresIn)
      .sign(new TextEncoder().encode(key));

  it('refuses a missing or bad bearer token and accepts one signed with the secret', async () => {
    await fn.route('calls', { path: '/private', image: 'ferrum-test/fn-echo', secret });
    expectError(await fn.call('GET', 'calls/private'), 401, /requires "Authorization: Bearer <token>"/);
    expectError(
      await fn.call('GET', 'calls/private', undefined, { Authorization: 'Bearer not-a-jwt' }),
      401,
      'not a valid JWT',
    );
    expectError(
      await fn.call('GET', 'calls/private', undefined, { Authorization: `Bearer ${await sign('other-secret')}` }),
      401,
      'signature does not match',
    );
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(secret));
    expectError(
      await fn.call('GET', 'calls/private', undefined, { Authorization: `Bearer ${expired}` }),
      401,
      'expired',
    );
    const good = await fn.call('GET', 'calls/private', undefined, { Authorization: `Bearer ${await sign(secret)}` });
    expect(good.status).toBe(200);
    expect(good.text).toContain('route=/private');
  });
});

describe('metrics', () => {
  it('counts calls by format and outcome and times them', async () => {
    const text = (await server.http.get('/metrics')).text;
    expect(text).toMatch(/ferrum_function_calls_total\{format="default",outcome="success"\} [1-9]/);
    expect(text).toMatch(/ferrum_function_calls_total\{format="default",outcome="timeout"\} [1-9]/);
    expect(text).toMatch(/ferrum_function_calls_total\{format="default",outcome="accepted"\} [1-9]/);
    expect(text).toMatch(/ferrum_function_call_duration_seconds_count\{format="default"\} [1-9]/);
  });
});
