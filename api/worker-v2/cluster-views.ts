import { toRfc3339 } from '../../src/core/time.js';
import type { InstanceStatus } from '../../src/worker/clusters/cluster-status.js';
import type { Cluster } from '../../src/worker/clusters/cluster-types.js';

/** Wire shapes of clusters: times in RFC 3339; secrets are not part of a Cluster at all. */

export function clusterListEntry(cluster: Cluster) {
  return {
    id: cluster.id,
    name: cluster.name,
    user_id: cluster.user_id,
    memory: cluster.memory,
    disk: cluster.disk,
    // The documented name; `disk` is what create takes, kept for clients that read it back.
    disk_space: cluster.disk,
    cpu_share: cluster.cpu_share,
  };
}

export function instanceView(instance: InstanceStatus) {
  return { ...instance, created_at: toRfc3339(instance.created_at), updated_at: toRfc3339(instance.updated_at) };
}

export function clusterView(
  cluster: Cluster,
  machines: { instances: InstanceStatus[]; runners_total: number; runners_available: number },
) {
  return {
    ...clusterListEntry(cluster),
    machines: machines.instances.map(instanceView),
    runners_total: machines.runners_total,
    runners_available: machines.runners_available,
    shared_to: cluster.shared_to,
    autoscale: cluster.autoscale,
    created_at: toRfc3339(cluster.created_at),
    updated_at: toRfc3339(cluster.updated_at),
  };
}
