import { sampleClusters } from './cluster-metrics.js';
import type { LeaderWork, LoopEnv } from '../loop-runner.js';
import { perRegistry } from '../../src/metrics/per-registry.js';
import { SampledGauges } from '../../src/metrics/sampled-gauges.js';
import { TopN } from '../../src/metrics/top-n.js';
import { emptyQueueTotals, sampleProjectQueues, type SampledQueue } from '../../src/mq/queues/queue-depth.js';
import { addTaskCounts, emptyTaskCounts, knownClusters } from '../../src/worker/tasks/queues/task-counts.js';
import { DEFAULT_CLUSTER } from '../../src/worker/clusters/cluster-types.js';

const PROJECT_PAGE = 100;

/**
 * The loop table's metrics-sampler pass, every FERRUM_METRICS_SAMPLE_MS: every queue, tasks by
 * status and every cluster's tasks and runners, into gauges that /metrics serves without reading
 * Redis (see SampledGauges).
 */
export function metricsSamplerWork({ ctx }: LoopEnv): LeaderWork {
  const { topQueues, tenantLabels } = ctx.config.metrics;
  const registry = ctx.metrics.registry;
  const operatorClusters = [...new Set([DEFAULT_CLUSTER, ctx.config.runner.cluster])];
  const gauges = perRegistry(
    registry,
    'sampled-gauges',
    () => new SampledGauges(registry, { tenantLabels, operatorClusters }),
  );
  const { worker, mq } = ctx;
  return {
    // Another controller samples now (or this one stops): its gauges are the ones to read.
    onLeadership: (held) => {
      if (!held) gauges.retire();
    },
    pass: async (isStopping) => {
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
  };
}
