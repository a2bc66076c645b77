import { fail } from '../../core/errors.js';
import type { ClusterStore } from './cluster-store.js';
import { DEFAULT_CLUSTER, type Cluster } from './cluster-types.js';

/**
 * Who may do what with a cluster, one rule each. A cluster is its owner's; users it is shared
 * to may send tasks to it and see it; admins see and manage every cluster. The default cluster
 * has no owner: everyone uses it, admins alone manage its runner tokens, nobody changes it.
 */
export interface ClusterCaller {
  userId: string;
  admin: boolean;
}

/** Whether a user may direct tasks to the cluster (owner or shared to). */
export function mayUseCluster(cluster: Cluster, userId: string): boolean {
  return cluster.user_id === userId || cluster.shared_to.includes(userId);
}

/** Whether the caller may see the cluster at all (others are told it does not exist). */
export function maySeeCluster(caller: ClusterCaller, cluster: Cluster): boolean {
  return caller.admin || mayUseCluster(cluster, caller.userId);
}

/** Whether the caller may change, delete or terminate the cluster, or list its runners. */
export function mayManageCluster(caller: ClusterCaller, cluster: Cluster): boolean {
  return caller.admin || cluster.user_id === caller.userId;
}

/** Whether the caller may create, list and revoke the cluster's runner tokens. */
export function mayManageRunnerTokens(caller: ClusterCaller, cluster: Cluster): boolean {
  return cluster.id === DEFAULT_CLUSTER ? caller.admin : mayManageCluster(caller, cluster);
}

/** Which clusters a project's tasks may go to: the default one, and clusters its owner owns or was shared. */
export class ClusterAccess {
  constructor(private readonly clusters: ClusterStore) {}

  /** Throws 400 naming the first requested cluster the user may not use (or that does not exist). */
  async checkUsable(userId: string, requested: (string | undefined)[]): Promise<void> {
    const named = [
      ...new Set(
        requested.filter((cluster): cluster is string => cluster !== undefined && cluster !== DEFAULT_CLUSTER),
      ),
    ];
    for (const clusterId of named) {
      const cluster = await this.clusters.record(clusterId);
      if (!cluster || !mayUseCluster(cluster, userId))
        throw fail('task_cluster_not_usable', clusterId, DEFAULT_CLUSTER);
    }
  }
}
