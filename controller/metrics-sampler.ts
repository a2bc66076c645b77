import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from './app-context.js';
import { sampleClusters } from './cluster-metrics.js';
import { LeaderLoop } from '../src/core/leader-loop.js';
import { perRegistry } from '../src/metrics/per-registry.js';
import { SampledGauges } from '../src/metrics/sampled-gauges.js';
import { TopN } from '../src/metrics/top-n.js';
import { emptyQueueTotals, sampleProjectQueues, type SampledQueue } from '../src/mq/queue-depth.js';
import type { MessageQueue } from '../src/mq/service.js';
import { addTaskCounts, emptyTaskCounts, knownClusters } from '../src/worker/tasks/task-counts.js';
import { DEFAULT_CLUSTER } from '../src/worker/tasks/tasks.js';

const PROJECT_PAGE = 100;
const LOOP = 'metrics-sampler';

export interface RunningMetricsSampler {
  loop: LeaderLoop;
  stop(): Promise<void>;
}

/**
 * On the leader controller, every FERRUM_METRICS_SAMPLE_MS: every queue, tasks by status and every
 * cluster's tasks and runners, into gauges that /metrics serves without reading Redis (see
 * SampledGauges).
 */
export function startMetricsSampler(ctx: AppContext, mq: MessageQueue, log: FastifyBaseLogger): RunningMetricsSampler {
  const { sampleMs, topQueues, tenantLabels } = ctx.config.metrics;
  const registry = ctx.metrics.registry;
  const operatorClusters = [...new Set([DEFAULT_CLUSTER, ctx.config.runner.cluster])];
  const gauges = perRegistry(
    registry,
    'sampled-gauges',
    () => new SampledGauges(registry, { tenantLabels, operatorClusters }),
  );
  const { worker } = ctx;
  const loop = new LeaderLoop({
    redis: ctx.redis,
    keys: ctx.keys,
    name: LOOP,
    intervalMs: sampleMs,
    log,
    leadership: {
      report(loop, held) {
        ctx.metrics.leadership.report(loop, held);
        // Another controller samples now (or this one stops): its gauges are the ones to read.
        if (!held) gauges.retire();
      },
    },
    work: async (isStopping) => {
      const deepest = new TopN<SampledQueue>(topQueues);
      const queues = emptyQueueTotals();
      const tasks = emptyTaskCounts();
      let after: string | undefined;
      do {
        const projectIds = await ctx.identity.projects.listProjectIds(after, PROJECT_PAGE);
        for (const projectId of projectIds) {
          await sampleProjectQueues(ctx.redis, mq.keys, projectId, queues, deepest);
        }
        await addTaskCounts(ctx.redis, worker.keys, projectIds, tasks);
        after = projectIds.length === PROJECT_PAGE ? projectIds[PROJECT_PAGE - 1] : undefined;
      } while (after && !isStopping());
      if (isStopping()) return;
      const clusterIds = new Set([
        DEFAULT_CLUSTER,
        ...(await knownClusters(ctx.redis, worker.keys, ctx.config.runner.cluster)),
        ...(await worker.clusters.all()).map((cluster) => cluster.id),
      ]);
      const { clusters, instances } = await sampleClusters(worker, [...clusterIds].sort());
      gauges.publish({ queues, deepestQueues: deepest.list(), tasks, clusters, instances });
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
