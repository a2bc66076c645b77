import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveRunnerMetrics } from '../../../runner/metrics-server.js';
import { Runner } from '../../../runner/runner.js';
import { loadConfig } from '../../../src/core/config.js';
import { freeLoopbackPort } from '../../../src/core/free-port.js';
import { redisErrorKind } from '../../../src/core/redis.js';
import { createProcessRegistry, redisErrorsCounter } from '../../../src/metrics/registry.js';
import { eventually } from '../../helpers/eventually.js';
import { parsePrometheus } from '../../helpers/prometheus.js';
import type { TestServer } from '../../helpers/server.js';
import { useTestServer } from '../../helpers/test-file.js';
import { FAST_WORKER_ENV } from '../../helpers/worker.js';

const KIND = /^(E[A-Z]+|timeout|unavailable|[A-Z]+|other)$/;

/** Shuts the test server's redis-server down: every connection to it is lost and refused. */
async function shutDownRedis(server: TestServer): Promise<void> {
  const admin = new Redis(server.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0 });
  await admin.connect();
  await admin.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
  admin.disconnect();
}

describe('Redis error kinds', () => {
  it('names errors with a bounded set of kinds', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(redisErrorKind(refused)).toBe('ECONNREFUSED');
    expect(redisErrorKind(new Error('Command timed out'))).toBe('timeout');
    const oom = Object.assign(new Error("OOM command not allowed when used memory > 'maxmemory'."), {
      name: 'ReplyError',
    });
    expect(redisErrorKind(oom)).toBe('OOM');
    expect(redisErrorKind(Object.assign(new Error('x'), { name: 'MaxRetriesPerRequestError' }))).toBe('unavailable');
    expect(redisErrorKind('not an error')).toBe('other');
  });
});

describe('ferrum_redis_errors_total', () => {
  const server = useTestServer();

  it('counts the lost connection and the requests Redis could not serve', async () => {
    await shutDownRedis(server);
    const refused = await eventually(async () => {
      const response = await server.http.get(`/1/projects/${server.projectId}`);
      return response.status === 503 ? response : undefined;
    }, 15_000);
    expect(refused.headers.get('retry-after')).toBe('1');
    const counted = await eventually(async () => {
      const { values } = await server.running.ctx.metrics.redisErrors.get();
      const byKind = Object.fromEntries(values.map((sample) => [sample.labels.kind, sample.value]));
      return (byKind.unavailable ?? 0) > 0 && Object.keys(byKind).some((kind) => /^E[A-Z]+$/.test(String(kind)))
        ? byKind
        : undefined;
    }, 15_000);
    expect(Object.keys(counted).every((kind) => KIND.test(kind))).toBe(true);
  });
});

describe('ferrum_redis_errors_total of a direct-mode runner', () => {
  const server = useTestServer(FAST_WORKER_ENV);
  let runner: Runner | undefined;
  let runnerMetrics: http.Server | undefined;
  let runnerPort: number;
  beforeAll(async () => {
    const config = loadConfig({
      ...FAST_WORKER_ENV,
      ...server.redisEnv,
      FERRUM_DATA_DIR: server.config.dataDir,
      LOG_LEVEL: 'silent',
    });
    // As the `ferrum runner` daemon: its own process registry, served on its own /metrics. No
    // Docker engine is needed to start one (its orphan sweep fails and is retried).
    const registry = createProcessRegistry();
    const noEngine = new Docker({ socketPath: path.join(os.tmpdir(), 'ferrum-no-docker-engine.sock') });
    runner = await Runner.start(config, config.redisUrl!, pino({ level: 'silent' }), noEngine, registry);
    runnerPort = await freeLoopbackPort();
    runnerMetrics = await serveRunnerMetrics(registry, '127.0.0.1', runnerPort, pino({ level: 'silent' }));
  });
  afterAll(async () => {
    runnerMetrics?.close();
    await runner?.stop().catch(() => undefined);
  });

  it('shares one counter per registry (the all-in-one controller and runner)', () => {
    const { metrics } = server.running.ctx;
    expect(redisErrorsCounter(metrics.registry)).toBe(metrics.redisErrors);
  });

  it("counts the runner's lost connections on the runner's own /metrics", async () => {
    const scrape = async () => parsePrometheus(await (await fetch(`http://127.0.0.1:${runnerPort}/metrics`)).text());
    const before = await scrape();
    expect(before.types.get('ferrum_redis_errors_total')).toBe('counter');
    expect(before.value('ferrum_redis_errors_total')).toBe(0);
    await shutDownRedis(server);
    const after = await eventually(async () => {
      const metrics = await scrape();
      const kinds = metrics.matching('ferrum_redis_errors_total').filter((sample) => sample.value > 0);
      return kinds.some((sample) => /^E[A-Z]+$/.test(sample.labels.kind ?? '')) ? kinds : undefined;
    }, 15_000);
    expect(after.every((sample) => KIND.test(sample.labels.kind ?? ''))).toBe(true);
  });
});
