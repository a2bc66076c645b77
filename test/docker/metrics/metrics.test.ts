import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runner } from '../../../runner/runner.js';
import { scriptClock } from '../../../src/core/lua.js';
import { MqClient, uniqueQueue } from '../../helpers/mq.js';
import { MqV1Client } from '../../helpers/mq-v1.js';
import { parsePrometheus, type Scrape } from '../../helpers/prometheus.js';
import { eventually } from '../../helpers/eventually.js';
import { TestSubscriber } from '../../helpers/push-subscriber.js';
import { createSchedule, FAST_SCHEDULE_ENV, waitForSchedule } from '../../helpers/schedules.js';
import { startMeteredRunner } from '../../helpers/metered-runner.js';
import { madeOnFirstUse } from '../../helpers/read-through.js';
import { useTestServer } from '../../helpers/test-file.js';
import { createCluster, FAST_WORKER_ENV } from '../../helpers/worker.js';
import { workerClientOf } from '../../helpers/worker-test-file.js';

const FAST_METRICS_ENV: Record<string, string> = {
  FERRUM_METRICS_SAMPLE_MS: '200',
  FERRUM_METRICS_TOP_QUEUES: '3',
  FERRUM_METRICS_REDIS_PING_MS: '100',
  FERRUM_METRICS_TENANT_LABELS: '1',
  FERRUM_MQ_SWEEP_MS: '200',
  FERRUM_MQ_MIN_TIMEOUT: '1',
  FERRUM_MQ_PUSH_TIMEOUT_MS: '300',
};

const server = useTestServer({ ...FAST_WORKER_ENV, ...FAST_SCHEDULE_ENV, ...FAST_METRICS_ENV });
const mq = madeOnFirstUse(() => new MqClient(server.http, server.projectId));
const v1 = madeOnFirstUse(() => new MqV1Client(server.http, server.projectId));
const worker = workerClientOf(server);
let runner: Runner;
let runnerMetrics: http.Server;
let runnerTarget: string;
const subscribers: TestSubscriber[] = [];

async function scrape(url = server.url): Promise<Scrape> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  return parsePrometheus(await response.text());
}

/** Polls /metrics until `check` holds of it. */
function scrapeUntil(check: (metrics: Scrape) => boolean, url = server.url): Promise<Scrape> {
  return eventually(async () => {
    const metrics = await scrape(url);
    return check(metrics) ? metrics : undefined;
  }, 10_000);
}

beforeAll(async () => {
  const metered = await startMeteredRunner(server, { ...FAST_WORKER_ENV, ...FAST_METRICS_ENV });
  ({ runner, metrics: runnerMetrics, target: runnerTarget } = metered);
});

afterAll(async () => {
  runnerMetrics?.close();
  await runner?.stop();
  for (const subscriber of subscribers) await subscriber.stop();
});

describe('HTTP metrics', () => {
  it('observes requests by route pattern; unknown URLs share one label', async () => {
    await server.http.get(`/1/projects/${server.projectId}`);
    await server.http.get('/no/such/path-a1');
    await server.http.get('/no/such/path-b2');
    const metrics = await scrape();
    expect(metrics.types.get('ferrum_http_request_duration_seconds')).toBe('histogram');
    expect(
      metrics.value('ferrum_http_request_duration_seconds_count', {
        route: '/1/projects/:project_id',
        status: '2xx',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      metrics.value('ferrum_http_request_duration_seconds_count', { route: 'unmatched', status: '4xx' }),
    ).toBeGreaterThanOrEqual(2);
    const routes = new Set(
      metrics.matching('ferrum_http_request_duration_seconds_count').map((sample) => sample.labels.route),
    );
    expect([...routes].some((route) => route?.includes('path-a1') || route?.includes(server.projectId))).toBe(false);
  });
});

describe('message queue metrics', () => {
  it('counts posts, reserves and deletes through version 3, version 1 and webhooks', async () => {
    const before = await scrape();
    const queue = uniqueQueue('counted');
    await mq.postBodies(queue, 'a', 'b', 'c');
    const reserved = await mq.reserve(queue, { n: 2 });
    expect((await mq.delete(queue, reserved[0].id, reserved[0].reservation_id)).status).toBe(200);
    const old = uniqueQueue('v1');
    const [id] = await v1.post(old, [{ body: 'one' }]);
    expect((await v1.get(old)).messages).toHaveLength(1);
    expect((await server.http.delete(v1.path(old, `/messages/${id}`))).status).toBe(200);
    const hooked = await server.http.post(mq.path(queue, '/webhook'), undefined, {
      raw: 'hook',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(hooked.status).toBe(201);
    const after = await scrape();
    for (const name of ['posted', 'reserved', 'deleted', 'expired', 'dead_lettered']) {
      expect(after.types.get(`ferrum_mq_messages_${name}_total`)).toBe('counter');
    }
    const delta = (name: string) =>
      after.value(`ferrum_mq_messages_${name}_total`) - before.value(`ferrum_mq_messages_${name}_total`);
    expect(delta('posted')).toBe(5);
    expect(delta('reserved')).toBe(3);
    expect(delta('deleted')).toBe(2);
  });

  it('counts messages dropped as expired, by reserve, peek, queue info and the sweeper', async () => {
    const before = (await scrape()).value('ferrum_mq_messages_expired_total');
    const [reserved, peeked, looked, idle] = ['reserved', 'peeked', 'looked-at', 'idle'].map((label) =>
      uniqueQueue(label),
    ) as [string, string, string, string];
    for (const queue of [reserved, peeked, looked, idle]) {
      await mq.createQueue(queue, { message_expiration: 1 });
      await mq.postBodies(queue, 'x', 'y');
    }
    scriptClock.advance(1100);
    expect(await mq.reserve(reserved, { n: 2 })).toEqual([]);
    expect(await mq.peek(peeked)).toEqual([]);
    expect((await mq.info(looked)).size).toBe(0);
    await scrapeUntil((metrics) => metrics.value('ferrum_mq_messages_expired_total') - before === 8);
  });

  it('counts messages moved to a dead letter queue', async () => {
    const before = (await scrape()).value('ferrum_mq_messages_dead_lettered_total');
    const source = uniqueQueue('dl-source');
    await mq.createQueue(source, { dead_letter: { queue_name: uniqueQueue('dl'), max_reservations: 1 } });
    await mq.postBodies(source, 'doomed');
    await mq.reserve(source, { timeout: 1 });
    scriptClock.advance(1100);
    expect(await mq.reserve(source)).toEqual([]);
    expect((await scrape()).value('ferrum_mq_messages_dead_lettered_total') - before).toBe(1);
  });

  it('counts push deliveries by outcome', async () => {
    const ok = await TestSubscriber.start(() => 200);
    const later = await TestSubscriber.start(() => 202);
    const broken = await TestSubscriber.start(() => 500);
    subscribers.push(ok, later, broken);
    const before = await scrape();
    const queue = uniqueQueue('push');
    const subs = [
      { name: 'ok', url: ok.url },
      { name: 'later', url: later.url },
      { name: 'broken', url: broken.url },
    ];
    const created = await server.http.put(mq.path(queue), {
      queue: { type: 'multicast', push: { subscribers: subs, retries: 1, retries_delay: 0 } },
    });
    expect(created.status).toBe(200);
    await mq.postBodies(queue, 'pushed');
    const outcome = (metrics: Scrape, name: string) =>
      metrics.value('ferrum_mq_push_deliveries_total', { outcome: name }) -
      before.value('ferrum_mq_push_deliveries_total', { outcome: name });
    const after = await scrapeUntil((metrics) => outcome(metrics, 'failed') === 1);
    expect(after.types.get('ferrum_mq_push_deliveries_total')).toBe('counter');
    expect(outcome(after, 'delivered')).toBe(1);
    expect(outcome(after, 'accepted')).toBe(1);
    expect(outcome(after, 'retrying')).toBe(1);
    expect(broken.received).toHaveLength(2);
  });

  it('reports the depth of the deepest queues only (top N over all projects)', async () => {
    const sizes = [7, 6, 5, 2];
    const queues = sizes.map(() => uniqueQueue('deep'));
    for (const [i, queue] of queues.entries())
      await mq.postBodies(queue, ...Array.from({ length: sizes[i]! }, (_, n) => `m${n}`));
    const metrics = await scrapeUntil(
      (scraped) => scraped.value('ferrum_mq_queue_depth_messages', { queue: queues[2]! }) === 5,
    );
    expect(metrics.types.get('ferrum_mq_queue_depth_messages')).toBe('gauge');
    const series = metrics.matching('ferrum_mq_queue_depth_messages');
    expect(series).toHaveLength(3);
    expect(series.map((sample) => [sample.labels.queue, sample.value])).toEqual([
      [queues[0], 7],
      [queues[1], 6],
      [queues[2], 5],
    ]);
    expect(series.every((sample) => sample.labels.project_id === server.projectId)).toBe(true);

    const waited = await scrapeUntil(
      (scraped) => scraped.value('ferrum_mq_oldest_message_age_seconds', { queue: queues[0]! }) >= 1,
    );
    const ages = waited.matching('ferrum_mq_oldest_message_age_seconds');
    expect(ages.map((sample) => sample.labels.queue).sort()).toEqual(queues.slice(0, 3).sort());
    const longest = Math.max(...ages.map((sample) => sample.value));
    expect(waited.value('ferrum_mq_oldest_message_age_max_seconds')).toBeGreaterThanOrEqual(longest);
    expect(longest).toBeLessThan(600);
  });
});

describe('worker metrics', () => {
  it('tasks by state and cluster, wait and run durations, runner slots, on controller and runner', async () => {
    await worker.upload({ name: 'metered', image: 'ferrum-test/busybox', command: 'sh -c "echo metered"' });
    const before = await scrape(`http://${runnerTarget}`);
    const id = await worker.queue('metered', '');
    await worker.waitFor(id, ['complete']);

    const own = await scrape(`http://${runnerTarget}`);
    expect(own.types.get('ferrum_worker_task_wait_seconds')).toBe('histogram');
    expect(own.types.get('ferrum_worker_task_run_seconds')).toBe('histogram');
    expect(own.types.get('ferrum_runner_slots')).toBe('gauge');
    expect(own.types.get('ferrum_runner_tasks_total')).toBe('counter');
    expect(
      own.value('ferrum_worker_task_wait_seconds_count') - before.value('ferrum_worker_task_wait_seconds_count'),
    ).toBe(1);
    expect(
      own.value('ferrum_worker_task_run_seconds_count', { status: 'complete' }) -
        before.value('ferrum_worker_task_run_seconds_count', { status: 'complete' }),
    ).toBe(1);
    expect(
      own.value('ferrum_worker_task_run_seconds_bucket', { status: 'complete', le: '3600' }),
    ).toBeGreaterThanOrEqual(1);
    expect(own.value('ferrum_runner_tasks_total', { cluster: 'default', status: 'complete' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(
      own.value('ferrum_runner_tasks_started_total', { cluster: 'default' }) -
        before.value('ferrum_runner_tasks_started_total', { cluster: 'default' }),
    ).toBe(1);
    const task = await worker.task(id);
    expect(task.runner_id).toBe(runner.id);
    expect(task.runner_host).toBeTruthy();
    expect(
      own.value('ferrum_runner_slots', { state: 'free' }) + own.value('ferrum_runner_slots', { state: 'busy' }),
    ).toBe(4);
    expect(own.types.get('ferrum_redis_round_trip_seconds')).toBe('histogram');
    expect(own.value('ferrum_redis_round_trip_seconds_count')).toBeGreaterThan(0);

    const metrics = await scrapeUntil((scraped) => scraped.value('ferrum_worker_tasks', { state: 'complete' }) >= 1);
    expect(metrics.types.get('ferrum_worker_tasks')).toBe('gauge');
    expect(
      metrics
        .matching('ferrum_worker_tasks')
        .map((sample) => sample.labels.state)
        .sort(),
    ).toEqual(['cancelled', 'complete', 'error', 'preparing', 'queued', 'running', 'timeout']);
    expect(metrics.types.get('ferrum_worker_cluster_tasks')).toBe('gauge');
    expect(
      metrics
        .matching('ferrum_worker_cluster_tasks', { cluster: 'default' })
        .map((sample) => sample.labels.state)
        .sort(),
    ).toEqual(['active', 'queued']);
  });

  it('counts waiting tasks per cluster', async () => {
    const cluster = await createCluster(server.http, 'nobody runs this');
    const id = await worker.queue('metered', '', { cluster, delay: 60 });
    // One sample reads the task counts before the clusters' queues: a sample taken while the task
    // was being queued may hold it in the second only.
    const metrics = await scrapeUntil(
      (scraped) =>
        scraped.value('ferrum_worker_cluster_tasks', { cluster, state: 'queued' }) === 1 &&
        scraped.value('ferrum_worker_tasks', { state: 'queued' }) >= 1,
    );
    expect(metrics.value('ferrum_worker_tasks', { state: 'queued' })).toBeGreaterThanOrEqual(1);
    // A delayed task is not yet waiting for a runner.
    expect(metrics.value('ferrum_worker_oldest_queued_task_age_seconds', { cluster })).toBe(0);
    expect((await server.http.post(worker.path(`/tasks/${id}/cancel`))).status).toBe(200);
  });

  it('reports how long the oldest due task of a cluster has waited, and that no runner serves it', async () => {
    const cluster = await createCluster(server.http, 'waits for a runner');
    const id = await worker.queue('metered', '', { cluster });
    const metrics = await scrapeUntil(
      (scraped) => scraped.value('ferrum_worker_oldest_queued_task_age_seconds', { cluster }) > 0.3,
    );
    expect(metrics.value('ferrum_cluster_runners_online', { cluster })).toBe(0);
    expect(metrics.value('ferrum_cluster_runners_online', { cluster: 'default' })).toBe(1);
    expect((await server.http.post(worker.path(`/tasks/${id}/cancel`))).status).toBe(200);
  });

  it('says which leases this controller holds', async () => {
    const metrics = await scrapeUntil(
      (scraped) =>
        scraped.value('ferrum_leader', { loop: 'metrics-sampler' }) === 1 &&
        scraped.value('ferrum_leader', { loop: 'mq-push' }) === 1,
    );
    const loops = metrics.matching('ferrum_leader').map((sample) => sample.labels.loop);
    expect(loops).toEqual(expect.arrayContaining(['metrics-sampler', 'scheduler', 'mq-push']));
    // Which controller: the scrape target's instance label, stable across restarts (no host:pid).
    expect(Object.keys(metrics.matching('ferrum_leader')[0]!.labels)).toEqual(['loop']);
  });

  it('labels the build', async () => {
    const metrics = await scrape();
    expect(metrics.matching('ferrum_build_info')[0]!.labels.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('counts schedule runs by outcome', async () => {
    const before = (await scrape()).value('ferrum_worker_schedule_runs_total', { outcome: 'queued' });
    const scheduleId = await createSchedule(worker, { code_name: 'metered', payload: '', run_every: 1, run_times: 1 });
    await waitForSchedule(worker, scheduleId, (schedule) => schedule.status === 'complete');
    // The run is claimed (the schedule completes) just before its task is queued and counted.
    const metrics = await scrapeUntil(
      (scraped) => scraped.value('ferrum_worker_schedule_runs_total', { outcome: 'queued' }) > before,
    );
    expect(metrics.types.get('ferrum_worker_schedule_runs_total')).toBe('counter');
    expect(metrics.value('ferrum_worker_schedule_runs_total', { outcome: 'queued' }) - before).toBe(1);
  });
});

describe('process metrics', () => {
  it('Redis round-trip time of the controller', async () => {
    const metrics = await scrape();
    expect(metrics.types.get('ferrum_redis_round_trip_seconds')).toBe('histogram');
    expect(metrics.value('ferrum_redis_round_trip_seconds_count')).toBeGreaterThan(0);
    expect(metrics.types.get('ferrum_mq_long_poll_waiters')).toBe('gauge');
  });
});
