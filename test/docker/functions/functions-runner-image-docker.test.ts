import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOT_LABELS } from '../../../runner/functions/hot-function-pool.js';
import { freeLoopbackPort } from '../../../src/core/free-port.js';
import { eventually } from '../../helpers/eventually.js';
import { FunctionsClient } from '../../helpers/functions.js';
import { buildFerrumImage, checkoutImage, containerState, docker } from '../../helpers/image.js';
import { FAST_WORKER_ENV } from '../../helpers/worker.js';
import { workerTestFile } from '../../helpers/worker-test-file.js';
import { scaled } from '../../helpers/pace.js';

// A runner run from the project's image (built from this tree), as the chart's hostSocket mode
// runs it: the host's Docker engine through its socket, host network, and the http-stream
// socket folder shared with the engine at the same path. An http-stream call goes through it.

const TAG = checkoutImage('ferrum-fn-sockets');
const DOCKER_SOCKET = '/var/run/docker.sock';
// Of this process only: afterAll removes this app's containers, never a second copy's.
const APP = `image-runner-${process.pid}`;
const name = `ferrum-fn-sockets-runner-${process.pid}`;
let image: string;
beforeAll(async () => {
  image = await buildFerrumImage(TAG);
}, scaled(900_000));
const { server } = workerTestFile();
let socketDir: string;

beforeAll(async () => {
  socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-fn-sockets-'));
  // The image's user (uid 1000) makes a folder per function container here, as in /tmp.
  fs.chmodSync(socketDir, 0o1777);
  const metricsPort = await freeLoopbackPort();
  const env = {
    FERRUM_FUNCTIONS_SOCKET_DIR: socketDir,
    REDIS_URL: server.redisUrl,
    FERRUM_ENCRYPTION_KEY: FAST_WORKER_ENV.FERRUM_ENCRYPTION_KEY!,
    HOST: '127.0.0.1',
    FERRUM_RUNNER_METRICS_PORT: String(metricsPort),
    LOG_LEVEL: 'warn',
  };
  const engine = ['-v', `${DOCKER_SOCKET}:${DOCKER_SOCKET}`, '--group-add', String(fs.statSync(DOCKER_SOCKET).gid)];
  const sharedFolder = ['-v', `${socketDir}:${socketDir}`];
  const envArgs = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
  await docker(
    'run',
    '-d',
    `--name=${name}`,
    '--network=host',
    ...engine,
    ...sharedFolder,
    ...envArgs,
    image,
    'runner',
  );
  await eventually(
    async () => {
      if (!(await containerState(name)).running) throw new Error(`runner exited:\n${await docker('logs', name)}`);
      return (await fetch(`http://127.0.0.1:${metricsPort}/health`).catch(() => null))?.ok;
    },
    60_000,
    "the runner's /health",
  );
  await server.http.post('/v1/apps', { app: { name: APP } });
}, scaled(120_000));

afterAll(async () => {
  // SIGTERM: the runner drains and removes its function containers.
  await docker('stop', '--time', '30', name).catch(() => undefined);
  await docker('rm', '-f', name).catch(() => undefined);
  const left = await docker('ps', '-aq', '--filter', `label=${HOT_LABELS.function}=${APP}/stream`).catch(() => '');
  if (left) await docker('rm', '-f', ...left.split('\n')).catch(() => undefined);
  if (socketDir) fs.rmSync(socketDir, { recursive: true, force: true });
});

describe('a runner in a container on the host engine', () => {
  it('serves an http-stream call through the shared socket folder', { timeout: scaled(120_000) }, async () => {
    const fn = new FunctionsClient(server.http);
    await fn.route(APP, { path: '/stream', image: 'ferrum-test/fn-hot-stream', format: 'http-stream', timeout: 20 });
    const response = await fn.call('POST', `${APP}/stream`, 'through the image', { 'Content-Type': 'text/plain' });
    expect(response.status, `${response.text}\n${await docker('logs', name)}`).toBe(200);
    expect(JSON.parse(response.text)).toMatchObject({ body: 'through the image', method: 'POST' });
    // The function's socket lives in the shared folder, under the path both sides use.
    expect(fs.readdirSync(socketDir).some((entry) => entry.startsWith('fn-'))).toBe(true);
  });
});
