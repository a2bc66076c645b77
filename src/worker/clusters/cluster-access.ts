import { badRequest } from '../../core/errors.js';
import { mayUseCluster } from './cluster-rules.js';
import type { ClusterStore } from './cluster-store.js';
import { DEFAULT_CLUSTER } from '../tasks/task-service.js';

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
      if (!cluster || !mayUseCluster(cluster, userId)) {
        throw badRequest(
          `cluster "${clusterId}" is neither "${DEFAULT_CLUSTER}" nor a cluster this project's owner may use`,
        );
      }
    }
  }
}
