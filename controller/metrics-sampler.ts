import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from './app-context.js';
import { LeaderLoop } from '../src/core/leader-loop.js';
import { perRegistry } from '../src/metrics/per-registry.js';
import { SampledGauges } from '../src/metrics/sampled-gauges.js';
import { TopN } from '../src/metrics/top-n.js';
import type { QueueRef } from '../src/mq/keys.js';
import { offerQueueDepths, oldestReadyMessages } from '../src/mq/queue-depth.js';
import type { MessageQueue } from '../src/mq/service.js';
import { addTaskCounts, clusterTaskCounts, emptyTaskCounts, knownClusters } from '../src/worker/tasks/task-counts.js';

const PROJECT_PAGE = 100;

export interface RunningMetricsSampler {
  loop: LeaderLoop;
  stop(): Promise<void>;
}

/**
 * On the leader controller, every FERRUM_METRICS_SAMPLE_MS: the deepest queues, tasks by status
 * and tasks per cluster, into gauges (see SampledGauges).
 */
export function startMetricsSampler(ctx: AppContext, mq: MessageQueue, log: FastifyBaseLogger): RunningMetricsSampler {
  const { sampleMs, topQueues } = ctx.config.metrics;
  const registry = ctx.metrics.registry;
  const gauges = perRegistry(
    registry,
    'sampled-gauges',
    () =>
      new SampledGauges(registry, 3 * Math.max(sampleMs, 1000), {
        tenantLabels: ctx.config.metrics.tenantLabels,
        operatorCluster: ctx.config.runner.cluster,
      }),
  );
  const { worker } = ctx;
  const loop = new LeaderLoop({
    redis: ctx.redis,
    keys: ctx.keys,
    name: 'metrics-sampler',
    intervalMs: sampleMs,
    log,
    leadership: ctx.metrics.leadership,
    work: async (isStopping) => {
      const deepest = new TopN<QueueRef>(topQueues);
      const tasks = emptyTaskCounts();
      let after: string | undefined;
      do {
        const projectIds = await ctx.identity.listProjectIds(after, PROJECT_PAGE);
        for (const projectId of projectIds) await offerQueueDepths(ctx.redis, mq.keys, projectId, deepest);
        await addTaskCounts(ctx.redis, worker.keys, projectIds, tasks);
        after = projectIds.length === PROJECT_PAGE ? projectIds[PROJECT_PAGE - 1] : undefined;
      } while (after && !isStopping());
      if (isStopping()) return;
      const clusters = await clusterTaskCounts(
        worker.distribution,
        await knownClusters(ctx.redis, worker.keys, ctx.config.runner.cluster),
      );
      const deepestQueues = deepest.list();
      const oldestReadyAt = await oldestReadyMessages(
        ctx.redis,
        mq.keys,
        deepestQueues.map(({ item }) => item),
      );
      gauges.publish({ deepestQueues, oldestReadyAt, tasks, clusters });
    },
  });
  loop.start();
  return {
    loop,
    async stop() {
      await loop.stop();
    },
  };
}
