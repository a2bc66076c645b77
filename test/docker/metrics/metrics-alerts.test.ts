import type http from 'node:http';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runner } from '../../../runner/runner.js';
import { renderChart, findObject } from '../../helpers/chart.js';
import { eventually } from '../../helpers/eventually.js';
import { MqClient, uniqueQueue } from '../../helpers/mq.js';
import { parsePrometheus, type Scrape } from '../../helpers/prometheus.js';
import { promtoolCheckMetrics, TestPrometheus } from '../../helpers/prometheus-server.js';
import { TestSubscriber } from '../../helpers/push-subscriber.js';
import { startMeteredRunner } from '../../helpers/metered-runner.js';
import { useTestServer } from '../../helpers/test-file.js';
import { createCluster, FAST_WORKER_ENV } from '../../helpers/worker.js';
import { workerClientOf } from '../../helpers/worker-test-file.js';
import { scaled } from '../../helpers/pace.js';

// The chart's alert rules, evaluated by Debian's Prometheus scraping a real controller and runner,
// each alert brought about by its real condition: a queue and a cluster left waiting, a failing
// task, busy runners, a failing push subscriber, Redis refusing writes, Redis frozen (SIGSTOP),
// a target gone. Every `for:` is 0s and every rate() window 10 s, so each fires within seconds.

const ENV: Record<string, string> = {
  ...FAST_WORKER_ENV,
  FERRUM_METRICS_SAMPLE_MS: '200',
  FERRUM_METRICS_REDIS_PING_MS: '200',
  FERRUM_REDIS_COMMAND_TIMEOUT_MS: '500',
  FERRUM_MQ_PUSH_TIMEOUT_MS: '300',
};
const JOB = 'ferrum';

const server = useTestServer(ENV);
const worker = workerClientOf(server);
let runner: Runner | undefined;
let runnerMetrics: http.Server | undefined;
let runnerTarget: string;
let prometheus: TestPrometheus;
let servedCluster: string;
let unservedCluster: string;
let redisPid: number | undefined;
const subscribers: TestSubscriber[] = [];

async function scrape(url: string): Promise<{ status: number; text: string; ms: number }> {
  const started = Date.now();
  const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(scaled(10_000)) });
  return { status: response.status, text: await response.text(), ms: Date.now() - started };
}

async function scrapeUntil(check: (metrics: Scrape) => boolean): Promise<Scrape> {
  return eventually(async () => {
    const metrics = parsePrometheus((await scrape(server.url)).text);
    return check(metrics) ? metrics : undefined;
  }, 15_000);
}

/** The chart's rules with test timings: no `for:` wait, short windows and thresholds. */
async function chartRuleGroups(): Promise<unknown[]> {
  const zero = Object.fromEntries(
    [
      'targetDown',
      'redisUnreachable',
      'redisRefusingWrites',
      'redisMemoryHigh',
      'redisErrors',
      'metricsStale',
      'noRunners',
      'runnersSaturated',
      'tasksWaiting',
      'messagesWaiting',
      'taskErrors',
      'http5xx',
      'pushFailures',
      'noLeader',
    ].map((name) => [name, '0s']),
  );
  const rendered = await renderChart('charts/ferrum', {
    secrets: { bootstrapToken: 'a'.repeat(40), encryptionKey: 'b'.repeat(64), redisPassword: 'c'.repeat(32) },
    metrics: {
      prometheusRule: {
        enabled: true,
        targetSelector: `job="${JOB}"`,
        taskWaitSeconds: 1,
        messageWaitSeconds: 1,
        sampleAgeSeconds: 2,
        rateWindow: '10s',
        for: zero,
      },
    },
  });
  return findObject(rendered, 'PrometheusRule', 'ferrum').spec.groups;
}

/** The alert is neither pending nor firing: its condition, not an earlier one, will make it fire. */
async function expectQuiet(name: string, labels: Record<string, string> = {}): Promise<void> {
  expect(await prometheus.active(name, labels), `${name} before its condition`).toEqual([]);
}

async function redisServerPid(): Promise<number> {
  const redis = server.openRedis();
  try {
    const info = await redis.info('server');
    return Number(/process_id:(\d+)/.exec(info)![1]);
  } finally {
    redis.disconnect();
  }
}

async function redisConfigSet(name: string, value: string): Promise<void> {
  const redis = server.openRedis();
  try {
    await redis.config('SET', name, value);
  } finally {
    redis.disconnect();
  }
}

beforeAll(async () => {
  // Two tenant clusters: one served by a runner of one slot, one served by none.
  servedCluster = await createCluster(server.http, 'served');
  unservedCluster = await createCluster(server.http, 'unserved');
  const runnerEnv = { ...ENV, FERRUM_RUNNER_CLUSTER: servedCluster, FERRUM_RUNNER_SLOTS: '1' };
  // Its warnings while Redis refuses writes are the test's own doing.
  const metered = await startMeteredRunner(server, runnerEnv, { logLevel: 'error', docker: new Docker() });
  ({ runner, metrics: runnerMetrics, target: runnerTarget } = metered);
  prometheus = await TestPrometheus.start({
    job: JOB,
    targets: [new URL(server.url).host, runnerTarget],
    ruleGroups: await chartRuleGroups(),
    // Also the scrape timeout: on a loaded machine a shorter one would fail scrapes (stale series).
    interval: '1s',
  });
}, scaled(90_000));

afterAll(async () => {
  if (redisPid) process.kill(redisPid, 'SIGCONT');
  await prometheus?.stop();
  runnerMetrics?.close();
  await runner?.stop();
  for (const subscriber of subscribers) await subscriber.stop();
});

describe('/metrics as Prometheus reads it', () => {
  it('passes promtool check metrics, on the controller and on the runner', async () => {
    await scrapeUntil((metrics) => metrics.matching('ferrum_mq_messages').length > 0);
    for (const url of [server.url, `http://${runnerTarget}`]) {
      const { status, text } = await scrape(url);
      expect(status).toBe(200);
      expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: '' });
    }
  });

  it('has every counter series from the start, and no label that changes on restart', async () => {
    const controller = parsePrometheus((await scrape(server.url)).text);
    for (const [name, labels] of [
      ['ferrum_redis_errors_total', { kind: 'unavailable' }],
      ['ferrum_redis_errors_total', { kind: 'timeout' }],
      ['ferrum_http_responses_total', { status: '5xx' }],
      ['ferrum_mq_push_deliveries_total', { outcome: 'failed' }],
      ['ferrum_worker_schedule_runs_total', { outcome: 'failed' }],
      ['ferrum_function_calls_total', { format: 'default', outcome: 'error' }],
    ] as const) {
      expect(controller.matching(name, labels), `${name} ${JSON.stringify(labels)}`).toHaveLength(1);
    }
    const own = parsePrometheus((await scrape(`http://${runnerTarget}`)).text);
    expect(own.matching('ferrum_runner_tasks_total', { cluster: servedCluster, status: 'error' })).toHaveLength(1);
    expect(own.matching('ferrum_runner_tasks_started_total', { cluster: servedCluster })).toHaveLength(1);
    const labelValues = [...controller.samples, ...own.samples].flatMap((sample) => Object.values(sample.labels));
    expect(labelValues.filter((value) => value.includes(String(process.pid)))).toEqual([]);
    expect(controller.matching('ferrum_leader')[0]!.labels).toEqual({ loop: expect.any(String) });
  });
});

describe('alerts, each for its real condition', () => {
  it(
    'FerrumMessagesWaitingTooLong: a ready message waits on a small queue',
    async () => {
      await expectQuiet('FerrumMessagesWaitingTooLong');
      await new MqClient(server.http, server.projectId).postBodies(uniqueQueue('waits'), 'nobody reads me');
      await prometheus.firing('FerrumMessagesWaitingTooLong');
    },
    scaled(90_000),
  );

  it(
    'FerrumNoRunners and FerrumTasksWaitingTooLong: a tenant cluster without runners, beside one with a runner',
    async () => {
      for (const name of ['FerrumNoRunners', 'FerrumTasksWaitingTooLong']) await expectQuiet(name);
      await worker.upload({ name: 'ok', image: 'ferrum-test/busybox', command: 'true' });
      await worker.queue('ok', '', { cluster: unservedCluster });
      // The served tenant cluster's runner is online under the same label, and hides nothing.
      await scrapeUntil((metrics) => metrics.value('ferrum_cluster_runners_online', { cluster: 'tenants' }) === 1);
      const alert = await prometheus.firing('FerrumNoRunners', { cluster: 'tenants' });
      expect(Number(alert.value)).toBe(1);
      await prometheus.firing('FerrumTasksWaitingTooLong', { cluster: 'tenants' });
    },
    scaled(90_000),
  );

  it(
    'FerrumTaskErrors: tasks end in error',
    async () => {
      await expectQuiet('FerrumTaskErrors');
      await worker.upload({ name: 'fails', image: 'ferrum-test/busybox', command: 'sh -c "exit 3"' });
      const id = await worker.queue('fails', '', { cluster: servedCluster });
      await worker.waitFor(id, ['error'], 30_000);
      await prometheus.firing('FerrumTaskErrors', { cluster: servedCluster });
    },
    scaled(90_000),
  );

  it(
    'FerrumRunnersSaturated: due tasks wait while every slot is busy',
    async () => {
      await expectQuiet('FerrumRunnersSaturated');
      // The task's -payload … arguments follow the command line ("$@"): `true` takes them, where
      // busybox's sleep would refuse them and end the task at once.
      await worker.upload({ name: 'sleeps', image: 'ferrum-test/busybox', command: 'sleep 60 && true' });
      const running = await worker.queue('sleeps', '', { cluster: servedCluster });
      await worker.waitFor(running, ['running'], 30_000);
      const waiting = await worker.queue('sleeps', '', { cluster: servedCluster });
      await scrapeUntil((metrics) => metrics.value('ferrum_worker_clusters_saturated', { cluster: 'tenants' }) === 1);
      await prometheus.firing('FerrumRunnersSaturated', { cluster: 'tenants' });
      for (const id of [waiting, running]) await server.http.post(worker.path(`/tasks/${id}/cancel`));
    },
    scaled(90_000),
  );

  it(
    'FerrumPushFailures: a subscriber keeps failing',
    async () => {
      await expectQuiet('FerrumPushFailures');
      const broken = await TestSubscriber.start(() => 500);
      subscribers.push(broken);
      const mq = new MqClient(server.http, server.projectId);
      const queue = uniqueQueue('push');
      const created = await server.http.put(mq.path(queue), {
        queue: { type: 'unicast', push: { subscribers: [{ name: 'broken', url: broken.url }], retries: 0 } },
      });
      expect(created.status).toBe(200);
      await mq.postBodies(queue, 'undeliverable');
      await prometheus.firing('FerrumPushFailures');
    },
    scaled(90_000),
  );

  it(
    'FerrumRedisRefusingWrites: Redis answers PING but refuses writes',
    async () => {
      await expectQuiet('FerrumRedisRefusingWrites');
      await redisConfigSet('min-replicas-to-write', '1');
      try {
        const metrics = await scrapeUntil((scraped) => scraped.value('ferrum_redis_writable') === 0);
        expect(metrics.value('ferrum_redis_up')).toBe(1);
        await prometheus.firing('FerrumRedisRefusingWrites', { instance: new URL(server.url).host });
      } finally {
        await redisConfigSet('min-replicas-to-write', '0');
      }
      await scrapeUntil((scraped) => scraped.value('ferrum_redis_writable') === 1);
    },
    scaled(90_000),
  );

  it(
    'FerrumRedisMemoryHigh: Redis past 90 % of its maxmemory',
    async () => {
      await expectQuiet('FerrumRedisMemoryHigh');
      const redis = server.openRedis();
      try {
        const used = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
        // 95 % full: writes still pass, the alert fires.
        await redisConfigSet('maxmemory', String(Math.ceil(used / 0.95)));
        const metrics = await scrapeUntil((scraped) => scraped.value('ferrum_redis_memory_max_bytes') > 0);
        expect(metrics.value('ferrum_redis_memory_used_bytes')).toBeGreaterThan(0);
        await prometheus.firing('FerrumRedisMemoryHigh');
      } finally {
        await redisConfigSet('maxmemory', '0');
        redis.disconnect();
      }
      await scrapeUntil((scraped) => scraped.value('ferrum_redis_memory_max_bytes') === 0);
      // So near maxmemory, the sampler's writes may have been refused: the next test starts quiet.
      await eventually(async () => (await prometheus.active('FerrumMetricsStale')).length === 0, 15_000);
    },
    scaled(90_000),
  );

  it(
    'with Redis frozen: /metrics still answers with the last sample, and the Redis, 5xx and staleness alerts fire',
    async () => {
      const instance = new URL(server.url).host;
      const outageAlerts = [
        ['FerrumRedisUnreachable', { instance }],
        ['FerrumRedisErrors', { kind: 'timeout' }],
        ['FerrumHttp5xx', {}],
        ['FerrumMetricsStale', {}],
      ] as const;
      for (const [name, labels] of outageAlerts) await expectQuiet(name, labels);
      const before = parsePrometheus((await scrape(server.url)).text);
      redisPid = await redisServerPid();
      process.kill(redisPid, 'SIGSTOP');
      // Clients keep calling meanwhile; requests that need Redis fail (503) once the command timeout passes.
      let outage = true;
      const refused: number[] = [];
      const clients = (async () => {
        while (outage) refused.push((await server.http.get(`/3/projects/${server.projectId}/queues`)).status);
      })();
      try {
        const during = await eventually(async () => {
          const scraped = await scrape(server.url);
          // Were a scrape to read Redis, it would fail or take the command timeout (500 ms).
          expect(scraped.status).toBe(200);
          expect(scraped.ms).toBeLessThan(scaled(2000));
          const metrics = parsePrometheus(scraped.text);
          return metrics.value('ferrum_redis_up') === 0 && metrics.value('ferrum_metrics_sample_age_seconds') > 2
            ? metrics
            : undefined;
        }, 15_000);
        expect(during.value('ferrum_mq_messages', { state: 'ready' })).toBe(
          before.value('ferrum_mq_messages', { state: 'ready' }),
        );
        expect(during.value('ferrum_cluster_runners_online', { cluster: 'tenants' })).toBe(1);
        for (const [name, labels] of outageAlerts) await prometheus.firing(name, labels);
        // Prometheus kept scraping the controller throughout.
        expect(await prometheus.query(`min_over_time(up{instance="${instance}"}[5s])`)).toBe(1);
      } finally {
        outage = false;
        await clients;
      }
      expect(new Set(refused)).toEqual(new Set([503]));
      process.kill(redisPid, 'SIGCONT');
      redisPid = undefined;
      await scrapeUntil((metrics) => metrics.value('ferrum_redis_up') === 1);
    },
    scaled(90_000),
  );

  it(
    'FerrumTargetDown and FerrumNoLeader: the runner, then the controller, go away',
    async () => {
      for (const name of ['FerrumTargetDown', 'FerrumNoLeader']) await expectQuiet(name);
      runnerMetrics!.closeAllConnections();
      await new Promise((resolve) => runnerMetrics!.close(resolve));
      runnerMetrics = undefined;
      await prometheus.firing('FerrumTargetDown', { instance: runnerTarget });
      await runner!.stop();
      runner = undefined;
      await server.running.stop();
      await prometheus.firing('FerrumTargetDown', { instance: new URL(server.url).host });
      await prometheus.firing('FerrumNoLeader');
    },
    scaled(90_000),
  );
});
