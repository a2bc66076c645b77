import { INSTANCE_TYPES } from '../../src/worker/clusters/instances/instance-store.js';
import type { WorkerServices } from '../../src/worker/services.js';
import { clusterTaskCounts, type ClusterTaskCounts } from '../../src/worker/tasks/queues/task-counts.js';

/** A cluster's tasks and the runners serving it, as the metrics sampler saw them. */
export interface ClusterSample extends ClusterTaskCounts {
  /** Runners whose heartbeat is current. */
  runners: number;
  /** Their task slots, and how many of those are free. */
  slots: number;
  freeSlots: number;
}

/** Every cluster's sample, and the instances of all clusters counted by type. */
export interface ClustersSample {
  clusters: Map<string, ClusterSample>;
  instances: Map<string, number>;
}

/**
 * Samples `clusterIds` (the clusters tasks went to and the user-made ones): tasks from their BullMQ
 * queues, runners from their heartbeats, instances from their records; a few commands per cluster.
 */
export async function sampleClusters(worker: WorkerServices, clusterIds: string[]): Promise<ClustersSample> {
  const tasks = await clusterTaskCounts(worker.distribution, clusterIds);
  const instances = new Map<string, number>(INSTANCE_TYPES.map((type) => [type, 0]));
  const clusters = new Map<string, ClusterSample>();
  for (const id of clusterIds) {
    const [runners, status] = await Promise.all([worker.runners.runnersOf(id), worker.clusterStatus.instancesOf(id)]);
    for (const instance of status.instances) instances.set(instance.type, (instances.get(instance.type) ?? 0) + 1);
    clusters.set(id, {
      ...tasks.get(id)!,
      runners: runners.instances.length,
      slots: runners.runners_total,
      freeSlots: runners.runners_available,
    });
  }
  return { clusters, instances };
}
