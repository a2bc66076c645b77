import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runner } from '../../../runner/runner.js';
import { freeLoopbackPort } from '../../../src/core/free-port.js';
import { FAST_WORKER_ENV, startRunner, WorkerClient } from '../../helpers/worker.js';
import { createTenant, expectHealthy, type Tenant } from '../../helpers/adversarial/hardened-server.js';
import { scaled } from '../../helpers/pace.js';
import { useHardenedServer } from '../../helpers/adversarial/hardened-test-file.js';

// A tenant names images on registries at internal addresses (127.0.0.1:<port>/x): each pull
// would make the engine connect there, and its error would tell an open port from a closed one.
// The runner refuses those registries before the engine is asked; where the operator opened
// them (FERRUM_OUTBOUND_ALLOW), a failed pull reads the same whatever answered.

const server = useHardenedServer(FAST_WORKER_ENV);
let attacker: Tenant;
let listener: http.Server;
let connections = 0;
let openPort: number;
let closedPort: number;

beforeAll(async () => {
  attacker = await createTenant(server, 'registry-prober');
  listener = http.createServer((_request, response) => response.end('{}'));
  listener.on('connection', () => connections++);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  openPort = (listener.address() as AddressInfo).port;
  closedPort = await freeLoopbackPort();
}, scaled(60_000));

afterAll(async () => {
  await new Promise((resolve) => listener?.close(resolve));
});

/** The task's error with the probed port written as PORT: what the tenant learns beyond its own input. */
async function taskError(worker: WorkerClient, image: string, port?: number): Promise<string> {
  await worker.upload({ name: 'probe', image, command: 'true' });
  const id = await worker.queue('probe', '');
  const task = await worker.waitFor(id, ['complete', 'error'], 60_000);
  expect(task.status).toBe('error');
  return port === undefined ? (task.msg ?? '') : (task.msg ?? '').replaceAll(String(port), 'PORT');
}

async function withRunner<T>(env: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const runner: Runner = await startRunner(server, env);
  try {
    return await work();
  } finally {
    await runner.stop();
  }
}

describe('images on registries at internal addresses', () => {
  it('are refused before the engine connects, the same for open and closed ports', async () => {
    const worker = new WorkerClient(attacker.http, attacker.projectId);
    await withRunner({}, async () => {
      for (const host of ['127.0.0.1', 'localhost']) {
        const open = await taskError(worker, `${host}:${openPort}/probe`, openPort);
        const closed = await taskError(worker, `${host}:${closedPort}/probe`, closedPort);
        expect(open).toMatch(/internal address/);
        expect(open).toBe(closed);
      }
      expect(await taskError(worker, '169.254.169.254/latest')).toMatch(/internal address/);
    });
    expect(connections).toBe(0);
  });

  it('are refused as function images too (502), and nothing connects', async () => {
    const app = `probe-${Math.random().toString(36).slice(2, 8)}`;
    expect((await attacker.http.post('/v1/apps', { app: { name: app, project_id: attacker.projectId } })).status).toBe(
      200,
    );
    await withRunner({}, async () => {
      const texts: string[] = [];
      for (const [path, port] of [
        ['/open', openPort],
        ['/closed', closedPort],
      ] as const) {
        const route = await attacker.http.post(`/v1/apps/${app}/routes`, {
          route: { path, image: `127.0.0.1:${port}/probe` },
        });
        expect(route.status, route.text).toBe(200);
        const call = await attacker.http.request('POST', `/r/${app}${path}`, { token: null, raw: '' });
        expect(call.status).toBe(502);
        texts.push(call.text.replaceAll(String(port), 'PORT'));
      }
      expect(texts[0]).toMatch(/internal address/);
      expect(texts[0]).toBe(texts[1]);
    });
    expect(connections).toBe(0);
  });

  it('opened by the operator, fail the same whether something listens or not', async () => {
    const worker = new WorkerClient(attacker.http, attacker.projectId);
    await withRunner({ FERRUM_OUTBOUND_ALLOW: '127.0.0.0/8' }, async () => {
      const open = await taskError(worker, `127.0.0.1:${openPort}/probe`, openPort);
      const closed = await taskError(worker, `127.0.0.1:${closedPort}/probe`, closedPort);
      expect(open).toMatch(/could not be reached/);
      expect(open).toBe(closed);
    });
    expect(connections).toBeGreaterThan(0);
    await expectHealthy(server);
  });
});
