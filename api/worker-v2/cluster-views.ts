import { toRfc3339 } from '../../src/core/time.js';
import type { RunnerInstance } from '../../src/worker/clusters/runners/runner-registry.js';
import type { InstanceStatus } from '../../src/worker/clusters/instances/cluster-status.js';
import type { Cluster } from '../../src/worker/clusters/cluster-types.js';

/** Wire shapes of clusters: times in RFC 3339; secrets are not part of a Cluster at all. */

/** Users shared to by id, and the addresses shared to by e-mail (whether a user has them or not). */
function sharedToView(cluster: Cluster): string[] {
  const emails = cluster.shared_emails ?? {};
  const byEmail = new Set(Object.values(emails));
  return [...cluster.shared_to.filter((id) => !byEmail.has(id)), ...Object.keys(emails)];
}

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

/** A runner as GET /2/clusters/{id}/runners shows it. */
export function runnerView(runner: RunnerInstance) {
  return {
    instance_id: runner.instance_id,
    hostname: runner.hostname,
    version: runner.version,
    slots: runner.slots,
    busy: runner.busy,
    tasks: runner.tasks ?? [],
    created_at: toRfc3339(runner.created_at),
    updated_at: toRfc3339(runner.updated_at),
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
    shared_to: sharedToView(cluster),
    autoscale: cluster.autoscale,
    created_at: toRfc3339(cluster.created_at),
    updated_at: toRfc3339(cluster.updated_at),
  };
}
