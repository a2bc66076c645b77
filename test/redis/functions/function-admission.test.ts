import { Redis } from 'ioredis';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectLifecycle } from '../../../src/auth/project-lifecycle.js';
import type { Quotas } from '../../../src/auth/quotas.js';
import { EventBus } from '../../../src/core/bus.js';
import { loadConfig } from '../../../src/core/config.js';
import { isHttpError } from '../../../src/core/errors.js';
import { KeySpace } from '../../../src/core/redis.js';
import { CallAdmission, type IncomingCall } from '../../../src/functions/calls/admission.js';
import { RouteCache } from '../../../src/functions/routes/route-cache.js';
import { openFunctionStores, type FunctionStores } from '../../../src/functions/services.js';
import type { Route, RouteType } from '../../../src/functions/types.js';
import { startTestRedis } from '../../helpers/redis.js';

// The one gate of /r/ calls (CallAdmission.admit), called directly over a real Redis: what it
// refuses, in which order, and what a refused call leaves behind.

const config = loadConfig({});
const SECRET = 'a-route-secret-long-enough';
let redis: Awaited<ReturnType<typeof startTestRedis>>;
let commands: Redis;
let subscriber: Redis;
let stores: FunctionStores;
let lifecycle: ProjectLifecycle;
let admission: CallAdmission;
let stopRoutes: () => Promise<void>;
/** Each project's own quotas, over the operator's defaults. */
const projectQuotas = new Map<string, Partial<Quotas>>();

function routeOf(appName: string, path: string, type: RouteType, secret: string | null = null): Route {
  return {
    appName,
    path,
    image: 'img:1',
    memory: 128,
    type,
    format: 'default',
    timeout: 30,
    idleTimeout: 30,
    maxConcurrency: 1,
    headers: {},
    config: {},
    secret,
    createdAt: Date.now(),
    updatedAt: Date.now(),
  };
}

function callOf(appName: string, path: string, authorization?: string): IncomingCall {
  return {
    appName,
    path,
    authorization,
    method: 'POST',
    requestUrl: `http://localhost/r/${appName}/${path}`,
    headers: {},
    body: Buffer.from('hi'),
  };
}

/** The refusal `admit` throws: its status and message. */
async function refusalOf(call: IncomingCall): Promise<{ status: number; message: string }> {
  try {
    await admission.admit(call);
  } catch (error) {
    if (isHttpError(error)) return { status: error.statusCode, message: error.message };
    throw error;
  }
  throw new Error('the call was let in');
}

async function queuedCalls(projectId: string): Promise<number> {
  return Number((await commands.get(stores.keys.queuedCalls(projectId))) ?? 0);
}

beforeAll(async () => {
  redis = await startTestRedis();
  commands = new Redis(redis.url);
  subscriber = new Redis(redis.url);
  const keys = new KeySpace('admission-test:');
  stores = openFunctionStores(config, commands, keys);
  lifecycle = new ProjectLifecycle(commands, keys, stores.notices);
  const routes = new RouteCache(stores.routes, stores.notices, 60_000);
  stopRoutes = await routes.start(new EventBus(subscriber, commands));
  const projects = { getProject: async (id: string) => ({ quotas: projectQuotas.get(id) ?? {} }) };
  admission = new CallAdmission(commands, stores.keys, stores.calls, routes, projects, config.quotas);
});
afterAll(async () => {
  await stopRoutes?.();
  commands?.disconnect();
  subscriber?.disconnect();
  await redis?.stop();
});

describe('call admission', () => {
  it('lets in a call of a route, `/path/` being the route `/path`, and names the call before its quotas are checked', async () => {
    await stores.routes.create('p-ok', routeOf('open', '/hello', 'sync'));
    const named: string[] = [];
    const admitted = await admission.admit({ ...callOf('open', 'hello/'), named: (id) => named.push(id) });
    expect(admitted.route.path).toBe('/hello');
    expect(admitted.app.projectId).toBe('p-ok');
    expect(named).toEqual([admitted.callId]);
    expect(await queuedCalls('p-ok'), 'a sync call takes no place among queued calls').toBe(0);
  });

  it('refuses a missing app or route (404), a suspended project (403) and a call without the route token (401)', async () => {
    await stores.routes.create('p-refused', routeOf('guarded', '/fn', 'sync', SECRET));
    expect(await refusalOf(callOf('no-such-app', 'fn'))).toEqual({ status: 404, message: 'App not found' });
    expect(await refusalOf(callOf('guarded', 'other'))).toEqual({ status: 404, message: 'Route not found' });
    expect((await refusalOf(callOf('guarded', 'fn'))).status).toBe(401);
    expect(await refusalOf(callOf('guarded', 'fn', 'Bearer not-a-jwt'))).toEqual({
      status: 401,
      message: 'Invalid token: the token is not a valid JWT',
    });
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
    expect((await admission.admit(callOf('guarded', 'fn', `Bearer ${token}`))).route.path).toBe('/fn');

    await lifecycle.setSuspended('p-refused', true);
    expect(await refusalOf(callOf('guarded', 'fn', `Bearer ${token}`))).toEqual({
      status: 403,
      message: 'Project suspended: the call was not run',
    });
  });

  it('gives an async call a place among its project queued calls up to queued_calls, then 403 naming the quota', async () => {
    projectQuotas.set('p-queue', { queued_calls: 2 });
    await stores.routes.create('p-queue', routeOf('later', '/job', 'async'));
    await admission.admit(callOf('later', 'job'));
    await admission.admit(callOf('later', 'job'));
    expect(await queuedCalls('p-queue')).toBe(2);
    const refused = await refusalOf(callOf('later', 'job'));
    expect(refused.status).toBe(403);
    expect(refused.message).toContain('quota queued_calls reached');
    expect(await queuedCalls('p-queue'), 'the refused call took no place').toBe(2);
  });

  it('refuses a call when stored_bytes is full (413, before the queue), and an async one gives its place back', async () => {
    projectQuotas.set('p-full', { stored_bytes: 100, queued_calls: 5 });
    await stores.routes.create('p-full', routeOf('full', '/job', 'async'));
    await stores.calls.bytes.count('p-full', [{ appName: 'full', callId: 'earlier', bytes: 100 }]);
    const refused = await refusalOf(callOf('full', 'job'));
    expect(refused.status).toBe(413);
    expect(refused.message).toContain('quota stored_bytes reached');
    expect(await queuedCalls('p-full')).toBe(0);

    await stores.calls.bytes.release('p-full', 'full', ['earlier']);
    await admission.admit(callOf('full', 'job'));
    expect(await queuedCalls('p-full')).toBe(1);
  });

  it("refuses a sync call at once when stored_bytes fills: a project without room for a call's most bytes reads each time", async () => {
    projectQuotas.set('p-near', { stored_bytes: 1000 });
    await stores.routes.create('p-near', routeOf('near', '/now', 'sync'));
    await admission.admit(callOf('near', 'now'));
    await admission.admit(callOf('near', 'now'));
    await stores.calls.bytes.count('p-near', [{ appName: 'near', callId: 'filled', bytes: 1000 }]);
    const refused = await refusalOf(callOf('near', 'now'));
    expect(refused.status).toBe(413);
    expect(refused.message).toContain('quota stored_bytes reached');
  });
});
