import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionInvocation } from '../../../src/functions/calls/function-executor.js';
import { HotFunctionPool } from '../../../runner/functions/hot-function-pool.js';
import { newObjectId } from '../../../src/core/ids.js';
import { eventually } from '../../helpers/eventually.js';
import { scaled } from '../../helpers/pace.js';

// A project's hot containers on one runner are bounded (FERRUM_FUNCTIONS_PROJECT_HOT_CONTAINERS)
// however its calls race: a container counts from the moment its start is decided until the
// engine has removed it, so calls that stop another route's idle container to make room cannot
// start theirs while that one is still there. The engine's own events are the witness.
const RUN_LABEL = `ferrum.test.hot-race=${randomBytes(6).toString('hex')}`;
const [labelName, labelValue] = RUN_LABEL.split('=') as [string, string];
const MOST = 2;
const ROUTES = 4;

const docker = new Docker();
let pool: HotFunctionPool;
let events: Readable;
let held = 0;
let mostHeld = 0;

function call(route: number): FunctionInvocation {
  return {
    callId: newObjectId(),
    appName: `race${process.pid}`,
    projectId: 'racing-project',
    path: `/r${route}`,
    image: 'ferrum-test/fn-hot-json',
    format: 'json',
    type: 'sync',
    memoryMb: 64,
    timeoutMs: 20_000,
    idleTimeoutMs: 30_000,
    maxConcurrency: 2,
    method: 'POST',
    requestUrl: `http://localhost:8080/r/race/r${route}`,
    headers: { 'content-type': 'text/plain', 'x-sleep-ms': '200' },
    routeEnv: {},
    body: Buffer.from('ping'),
  };
}

beforeAll(async () => {
  events = (await docker.getEvents({
    filters: { type: ['container'], event: ['create', 'destroy'], label: [RUN_LABEL] },
  })) as unknown as Readable;
  let buffered = '';
  events.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines.filter(Boolean)) {
      held += (JSON.parse(line) as { Action: string }).Action === 'create' ? 1 : -1;
      mostHeld = Math.max(mostHeld, held);
    }
  });
  pool = new HotFunctionPool(docker, {
    labels: { 'ferrum.managed': 'true', [labelName]: labelValue },
    network: 'none',
    pidsLimit: 64,
    milliCpus: 1000,
    socketRoot: path.join(os.tmpdir(), 'ferrum-test-fn-sockets'),
    busyWaitMs: 10_000,
    maxWaiting: 100,
    maxProjectContainers: MOST,
  });
});

afterAll(async () => {
  await pool?.close();
  events?.destroy();
  const left = await docker.listContainers({ all: true, filters: { label: [RUN_LABEL] } });
  await Promise.all(left.map((container) => docker.getContainer(container.Id).remove({ force: true })));
});

describe('racing calls of one project over several routes', () => {
  it(
    `never hold more than ${MOST} containers in the engine at once; each call is answered or refused with 503`,
    async () => {
      for (let round = 0; round < 3; round++) {
        const calls = Array.from({ length: 3 * ROUTES }, (_, i) => pool.invoke(call((i + round) % ROUTES)));
        const results = await Promise.all(calls);
        for (const result of results) expect([200, 503], result.errorMessage).toContain(result.status);
        expect(results.some((result) => result.status === 200)).toBe(true);
      }
      await pool.close();
      await eventually(() => held === 0, scaled(20_000), 'every container to be removed');
      expect(mostHeld).toBeGreaterThan(0);
      expect(mostHeld).toBeLessThanOrEqual(MOST);
    },
    scaled(120_000),
  );
});
