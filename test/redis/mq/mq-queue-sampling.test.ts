import { beforeAll, describe, expect, it } from 'vitest';
import { useMqClient, uniqueQueue } from '../../helpers/mq.js';
import { useTestServer } from '../../helpers/test-file.js';
import { messageIdTime } from '../../../src/core/ids.js';
import { TopN } from '../../../src/metrics/top-n.js';
import { emptyQueueTotals, sampleProjectQueues, type SampledQueue } from '../../../src/mq/queues/queue-depth.js';
import { eventually } from '../../helpers/eventually.js';
import { parsePrometheus } from '../../helpers/prometheus.js';

// The metrics sampler reads every queue (also run in the cluster lane, where queues live on
// different masters): totals by state, and the oldest ready message wherever it waits, not only on
// the deepest queues.

const server = useTestServer({ FERRUM_METRICS_SAMPLE_MS: '200', FERRUM_METRICS_TOP_QUEUES: '2' });
const mq = useMqClient(server);

describe('sampling every queue', () => {
  const small = uniqueQueue('small-old');
  const deep = [uniqueQueue('deep-a'), uniqueQueue('deep-b'), uniqueQueue('deep-c')];
  let oldestId: string;

  beforeAll(async () => {
    oldestId = (await mq.postBodies(small, 'the oldest'))[0]!;
    for (const queue of deep) await mq.postBodies(queue, 'a', 'b', 'c', 'd', 'e');
    await mq.post(deep[0]!, [{ body: 'later', delay: 600 }]);
    expect(await mq.reserve(deep[1]!, { n: 2 })).toHaveLength(2);
  });

  it('sums messages by state over all queues and finds the oldest ready one on a small queue', async () => {
    const totals = emptyQueueTotals();
    const top = new TopN<SampledQueue>(2);
    const { ctx } = server.running;
    await sampleProjectQueues(ctx.redis, ctx.mq.keys, server.projectId, totals, top);
    expect(totals).toEqual({
      queues: 4,
      ready: 1 + 5 + 3 + 5,
      delayed: 1,
      reserved: 2,
      oldestReadyAt: messageIdTime(oldestId),
    });
    expect(top.list().map(({ item, value }) => [item.ref.name, value])).toEqual([
      [deep[0], 6],
      [deep[1], 5],
    ]);
    expect(top.list().some(({ item }) => item.ref.name === small)).toBe(false);
  });

  it('reports them on /metrics without naming a queue', async () => {
    const metrics = await eventually(async () => {
      const scraped = parsePrometheus(await (await fetch(`${server.url}/metrics`)).text());
      return scraped.value('ferrum_mq_messages', { state: 'ready' }) === 14 ? scraped : undefined;
    }, 10_000);
    expect(metrics.value('ferrum_mq_messages', { state: 'delayed' })).toBe(1);
    expect(metrics.value('ferrum_mq_messages', { state: 'reserved' })).toBe(2);
    expect(metrics.value('ferrum_mq_queues')).toBe(4);
    const waited = (Date.now() - messageIdTime(oldestId)) / 1000;
    expect(metrics.value('ferrum_mq_oldest_message_age_max_seconds')).toBeGreaterThan(0);
    expect(metrics.value('ferrum_mq_oldest_message_age_max_seconds')).toBeLessThanOrEqual(waited);
    expect(metrics.matching('ferrum_mq_queue_depth_messages')).toEqual([]);
  });
});
