import { expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { MqClient, uniqueQueue } from '../helpers/mq.js';
import { parsePrometheus, type Scrape } from '../helpers/prometheus.js';
import { madeOnFirstUse } from '../helpers/read-through.js';
import { useTestServer } from '../helpers/test-file.js';
import { FAST_WORKER_ENV, WorkerClient } from '../helpers/worker.js';

// Runs in the `cluster` lane: the samplers behind /metrics read keys spread over every master.
const server = useTestServer({
  ...FAST_WORKER_ENV,
  FERRUM_METRICS_SAMPLE_MS: '200',
  FERRUM_METRICS_TOP_QUEUES: '3',
  FERRUM_METRICS_TENANT_LABELS: '1',
});
const mq = madeOnFirstUse(() => new MqClient(server.http, server.projectId));

async function scrapeUntil(check: (metrics: Scrape) => boolean): Promise<Scrape> {
  return eventually(async () => {
    const response = await fetch(`${server.url}/metrics`);
    const metrics = parsePrometheus(await response.text());
    return check(metrics) ? metrics : undefined;
  }, 15_000);
}

it('samples the deepest queues and their oldest messages across every master', async () => {
  // Queues land on different slots (a tag per queue), so on different masters.
  const sizes = [9, 7, 5, 3, 1];
  const queues = sizes.map(() => uniqueQueue('cluster-depth'));
  for (const [i, queue] of queues.entries())
    await mq.postBodies(queue, ...Array.from({ length: sizes[i]! }, (_, n) => `m${n}`));
  const metrics = await scrapeUntil(
    (scraped) => scraped.value('ferrum_mq_queue_depth_messages', { queue: queues[2]! }) === 5,
  );
  expect(
    metrics.matching('ferrum_mq_queue_depth_messages').map((sample) => [sample.labels.queue, sample.value]),
  ).toEqual([
    [queues[0], 9],
    [queues[1], 7],
    [queues[2], 5],
  ]);
  const aged = await scrapeUntil(
    (scraped) => scraped.value('ferrum_mq_oldest_message_age_seconds', { queue: queues[0]! }) >= 1,
  );
  expect(aged.matching('ferrum_mq_oldest_message_age_seconds')).toHaveLength(3);
});

it('counts the tasks waiting in a worker cluster and how long the oldest has waited', async () => {
  const worker = new WorkerClient(server.http, server.projectId);
  await worker.upload({ name: 'waits', image: 'ferrum-test/busybox', command: 'true' });
  // No runner serves the default cluster here: the tasks wait.
  for (let i = 0; i < 3; i++) await worker.queue('waits', '{}');
  const metrics = await scrapeUntil(
    (scraped) =>
      scraped.value('ferrum_worker_cluster_tasks', { cluster: 'default', state: 'queued' }) === 3 &&
      scraped.value('ferrum_worker_oldest_queued_task_age_seconds', { cluster: 'default' }) > 0.3,
  );
  expect(metrics.value('ferrum_cluster_runners_online', { cluster: 'default' })).toBe(0);
});
