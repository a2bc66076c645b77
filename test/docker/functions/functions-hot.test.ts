import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FunctionInvocation, FunctionResult } from '../../../src/functions/calls/function-executor.js';
import { HOT_LABELS, HotFunctionPool } from '../../../runner/functions/hot-function-pool.js';
import { newObjectId } from '../../../src/core/ids.js';
import type { HotEcho } from '../../helpers/hot-echo.js';
import { scaled } from '../../helpers/pace.js';

/** Marks this file's containers, so the test can count them and sees none left behind. */
const RUN_LABEL = `ferrum.test.functions-hot=${randomBytes(6).toString('hex')}`;
const [labelName, labelValue] = RUN_LABEL.split('=') as [string, string];

const docker = new Docker();
const SOCKET_ROOT = path.join(os.tmpdir(), 'ferrum-test-fn-sockets');
let pool: HotFunctionPool;

type Format = 'http' | 'json';

function invocation(app: string, format: Format, overrides: Partial<FunctionInvocation> = {}): FunctionInvocation {
  return {
    callId: newObjectId(),
    appName: app,
    projectId: 'hot-tests',
    path: '/echo',
    image: `ferrum-test/fn-hot-${format}`,
    format,
    type: 'sync',
    memoryMb: 64,
    timeoutMs: 10_000,
    idleTimeoutMs: 30_000,
    maxConcurrency: 2,
    method: 'POST',
    requestUrl: `http://localhost:8080/r/${app}/echo?x=1`,
    headers: { 'content-type': 'text/plain', 'x-echo': 'echoed' },
    routeEnv: { GREETING: 'hello' },
    body: Buffer.from('ping'),
    ...overrides,
  };
}

/** An invocation whose headers tell the test function what to do. */
function asking(
  app: string,
  format: Format,
  headers: Record<string, string>,
  overrides: Partial<FunctionInvocation> = {},
): FunctionInvocation {
  return invocation(app, format, { ...overrides, headers: { 'content-type': 'text/plain', ...headers } });
}

type Echo = HotEcho;

function echoOf(result: FunctionResult): Echo {
  expect(result.outcome, result.errorMessage).toBe('success');
  return JSON.parse(result.body.toString()) as Echo;
}

let apps = 0;
const newApp = () => `hot${process.pid}x${++apps}`;

async function containersOf(app: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [RUN_LABEL, `${HOT_LABELS.function}=${app}/echo`] } });
}

/** The test pools' settings: containers with `labels` on no network, sockets under SOCKET_ROOT. */
const poolOptions = (labels: Record<string, string>) => ({
  labels,
  network: 'none',
  pidsLimit: 64,
  milliCpus: 1000,
  socketRoot: SOCKET_ROOT,
  busyWaitMs: 10_000,
  maxWaiting: 100,
});

beforeAll(() => {
  pool = new HotFunctionPool(docker, poolOptions({ 'ferrum.managed': 'true', [labelName]: labelValue }));
});

afterAll(async () => {
  await pool.close();
  const left = await docker.listContainers({ all: true, filters: { label: [RUN_LABEL] } });
  await Promise.all(left.map((container) => docker.getContainer(container.Id).remove({ force: true })));
  expect(left).toHaveLength(0);
});

describe.each(['http', 'json'] as const)('a hot function in the %s format', (format) => {
  it('gets the body, method, URL, headers, call id, deadline and route env; the second call reuses its container', async () => {
    const app = newApp();
    const first = await pool.invoke(invocation(app, format));
    const firstEcho = echoOf(first);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('application/json');
    expect(firstEcho).toMatchObject({ calls: 1, method: 'POST', body: 'ping', echo: 'echoed', greeting: 'hello' });
    expect(firstEcho.url).toContain('/echo?x=1');
    expect(Date.parse(firstEcho.deadline)).toBeGreaterThan(Date.now());

    const call = invocation(app, format, { method: 'PUT', body: Buffer.from('second') });
    const second = echoOf(await pool.invoke(call));
    expect(second).toMatchObject({
      calls: 2,
      hostname: firstEcho.hostname,
      method: 'PUT',
      body: 'second',
      callId: call.callId,
    });
    expect(await containersOf(app)).toHaveLength(1);
  });

  it('answers with the status code and headers the function sets', async () => {
    const result = await pool.invoke(
      asking(newApp(), format, { 'x-status': '201', 'x-header': 'X-Custom: yes indeed' }),
    );
    expect(result.status).toBe(201);
    expect(result.headers['x-custom']).toBe('yes indeed');
    expect(result.headers).not.toHaveProperty('content-length');
  });

  // These images write no frame lines, so nothing in stderr says which call a line belongs to:
  // the engine relays stderr apart from the answer (the function writes it before answering, yet
  // it may arrive after), and unframed stderr goes to the call being served. A call's log is its
  // own once it settled (LOG_SETTLE_MS after the answer, the next call not yet sent); stderr
  // relayed after a next call started goes to that call. Framed logs keep to their call however
  // calls interleave (functions-http-stream-docker.test.ts).
  it("keeps a call's stderr with that call, and out of a next call sent once that log settled", async () => {
    const app = newApp();
    const noisy = await pool.invoke(asking(app, format, { 'x-stderr': 'warning from the function' }));
    expect(noisy.stderr + (await noisy.laterLog)).toBe('warning from the function\n');
    const quiet = await pool.invoke(asking(app, format, {}));
    expect(echoOf(quiet).calls).toBe(2);
    expect(quiet.stderr + (await quiet.laterLog)).toBe('');
  });

  it('answers 502 when the function breaks its framing, and the next call gets a new container', async () => {
    const app = newApp();
    const before = echoOf(await pool.invoke(invocation(app, format)));
    const broken = await pool.invoke(asking(app, format, { 'x-garbage': '1' }));
    expect(broken).toMatchObject({ outcome: 'error', status: 502 });
    expect(broken.errorMessage).toMatch(
      format === 'http' ? /HTTP response is malformed/ : /not a JSON object per line/,
    );
    const after = echoOf(await pool.invoke(invocation(app, format)));
    expect(after.hostname).not.toBe(before.hostname);
    expect(after.calls).toBe(1);
  });
});

describe('hot containers', () => {
  it('reads a chunked HTTP answer', async () => {
    const result = await pool.invoke(asking(newApp(), 'http', { 'x-chunked': '1', 'x-echo': 'in pieces' }));
    expect(echoOf(result).echo).toBe('in pieces');
    expect(result.headers).not.toHaveProperty('transfer-encoding');
  });

  it('are labelled with the runner labels, the route and its version', async () => {
    const app = newApp();
    echoOf(await pool.invoke(invocation(app, 'json')));
    const [container] = await containersOf(app);
    expect(container!.Labels).toMatchObject({ 'ferrum.managed': 'true', [HOT_LABELS.function]: `${app}/echo` });
    expect(container!.Labels[HOT_LABELS.version]).toMatch(/^[0-9a-f]{24}$/);
    const inspected = await docker.getContainer(container!.Id).inspect();
    expect(inspected.HostConfig.Memory).toBe(64 * 1024 * 1024);
    expect(inspected.HostConfig.NetworkMode).toBe('none');
  });

  it('stop after idle_timeout', async () => {
    const app = newApp();
    echoOf(await pool.invoke(invocation(app, 'http', { idleTimeoutMs: 300 })));
    expect(pool.containerCount(app, '/echo')).toBe(1);
    await vi.waitFor(async () => expect(await containersOf(app)).toHaveLength(0), { timeout: 5000, interval: 100 });
    expect(pool.containerCount(app, '/echo')).toBe(0);
    // The route starts afresh on its next call.
    expect(echoOf(await pool.invoke(invocation(app, 'http', { idleTimeoutMs: 300 }))).calls).toBe(1);
  });

  it('never exceed max_concurrency under parallel calls, and every call is answered', async () => {
    const app = newApp();
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, pool.containerCount(app, '/echo'))), 5);
    const calls = Array.from({ length: 8 }, () =>
      pool.invoke(asking(app, 'json', { 'x-sleep-ms': '150' }, { maxConcurrency: 3 })),
    );
    const echoes = (await Promise.all(calls)).map(echoOf);
    clearInterval(watch);
    expect(most).toBeLessThanOrEqual(3);
    expect(new Set(echoes.map((echo) => echo.hostname)).size).toBeLessThanOrEqual(3);
    expect(echoes).toHaveLength(8);
    expect((await containersOf(app)).length).toBeLessThanOrEqual(3);
  });

  it('answer 503 with Retry-After to a call that waited for a free container beyond its timeout', async () => {
    const app = newApp();
    const busy = pool.invoke(asking(app, 'http', { 'x-sleep-ms': '1500' }, { maxConcurrency: 1 }));
    await vi.waitFor(() => expect(pool.busyCount(app, '/echo')).toBe(1), { timeout: scaled(20_000) });
    const waiting = await pool.invoke(asking(app, 'http', {}, { maxConcurrency: 1, timeoutMs: 200 }));
    expect(waiting).toMatchObject({ outcome: 'error', status: 503, headers: { 'retry-after': '1' } });
    expect(waiting.errorMessage).toMatch(/no container of the route came free within 200 ms/);
    echoOf(await busy);
  });

  it("do not count a container's start and boot against the first call's timeout", async () => {
    const result = await pool.invoke(invocation(newApp(), 'json', { timeoutMs: 100 }));
    expect(echoOf(result).calls).toBe(1);
  });

  it('answer 504 on a timeout, and the overrunning container is replaced', async () => {
    const app = newApp();
    const first = echoOf(await pool.invoke(invocation(app, 'http')));
    const slow = await pool.invoke(
      asking(app, 'http', { 'x-sleep-ms': '5000', 'x-stderr': 'started' }, { timeoutMs: 800 }),
    );
    expect(slow).toMatchObject({ outcome: 'timeout', status: 504, stderr: 'started\n' });
    expect(slow.errorMessage).toMatch(/did not answer within 800 ms/);
    const next = echoOf(await pool.invoke(invocation(app, 'http', { timeoutMs: 5000 })));
    expect(next.hostname).not.toBe(first.hostname);
    await vi.waitFor(async () => expect(await containersOf(app)).toHaveLength(1), { timeout: 5000, interval: 100 });
  });

  it('answer 502 with the exit code when the container dies mid-call, and the next call works', async () => {
    const app = newApp();
    const dead = await pool.invoke(asking(app, 'json', { 'x-exit': '3', 'x-stderr': 'giving up' }));
    expect(dead).toMatchObject({ outcome: 'error', status: 502, stderr: 'giving up\n' });
    expect(dead.errorMessage).toBe('the function container exited with code 3');
    expect(echoOf(await pool.invoke(invocation(app, 'json'))).calls).toBe(1);
  });

  it('run under the memory limit of the route: a function allocating beyond it fails with 502', async () => {
    const app = newApp();
    const greedy = await pool.invoke(asking(app, 'json', { 'x-allocate-mb': '256' }, { memoryMb: 64 }));
    expect(greedy).toMatchObject({
      outcome: 'error',
      status: 502,
      errorMessage: 'the function ran out of memory (limit 64 MiB)',
    });
    expect(echoOf(await pool.invoke(asking(app, 'json', { 'x-allocate-mb': '8' }, { memoryMb: 64 }))).calls).toBe(1);
  });

  it('are replaced when the route changes, and the old ones stop', async () => {
    const app = newApp();
    const before = echoOf(await pool.invoke(invocation(app, 'http')));
    const after = echoOf(await pool.invoke(invocation(app, 'http', { routeEnv: { GREETING: 'changed' } })));
    expect(after).toMatchObject({ greeting: 'changed', calls: 1 });
    expect(after.hostname).not.toBe(before.hostname);
    await vi.waitFor(async () => expect(await containersOf(app)).toHaveLength(1), { timeout: 5000, interval: 100 });
  });

  it('answer 502 naming the image when it cannot be started', async () => {
    const result = await pool.invoke(invocation(newApp(), 'http', { image: 'ferrum-test/no-such-function' }));
    expect(result).toMatchObject({ outcome: 'error', status: 502 });
    expect(result.errorMessage).toMatch(/could not start the function: .*ferrum-test\/no-such-function/);
  });

  it('are for the hot formats only', async () => {
    await expect(pool.invoke(invocation(newApp(), 'http', { format: 'default' }))).rejects.toThrow(
      /http, json and http-stream formats/,
    );
  });
});

describe('closing the pool', () => {
  it('stops every container it started and refuses further calls', async () => {
    const own = new HotFunctionPool(docker, poolOptions({ [labelName]: labelValue }));
    const app = newApp();
    echoOf(await own.invoke(invocation(app, 'json')));
    const busy = own.invoke(asking(app, 'json', { 'x-sleep-ms': '3000' }));
    await vi.waitFor(() => expect(own.busyCount(app, '/echo')).toBe(1), { timeout: scaled(10_000) });
    await own.close();
    expect(await busy).toMatchObject({ outcome: 'error', status: 502 });
    expect(await containersOf(app)).toHaveLength(0);
    expect(await own.invoke(invocation(app, 'json'))).toMatchObject({
      status: 502,
      errorMessage: 'the function runner is shutting down',
    });
  });
});
