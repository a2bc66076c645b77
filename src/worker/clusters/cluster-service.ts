import type { ClusterPolicyConfig } from '../../core/config.js';
import { fail } from '../../core/errors.js';
import { newObjectId } from '../../core/ids.js';
import {
  mayManageCluster,
  mayManageRunnerTokens,
  maySeeCluster,
  type ClusterAccess,
  type ClusterCaller,
} from './cluster-access.js';
import { defaultClusterView, resolveCluster } from './cluster-rules.js';
import type { ClusterStore, StoredCluster } from './cluster-store.js';
import { DEFAULT_CLUSTER, type Cluster, type ClusterInput } from './cluster-types.js';
import type { ClusterStatus, ClusterStats, InstanceStatus } from './instances/cluster-status.js';
import type { ClusterTermination } from './instances/cluster-termination.js';
import type { InstanceStore } from './instances/instance-store.js';
import type { RunnerInstance, RunnerRegistry } from './runners/runner-registry.js';
import type { RunnerTokenInfo, RunnerTokens } from './runners/runner-tokens.js';

/** Finds users named in shared_to (by id or e-mail address); the identity service's. */
export interface UserLookup {
  getUser(id: string): Promise<{ id: string } | null>;
  findUserByEmail(email: string): Promise<{ id: string } | null>;
}

/** A cluster with its machines, as the API shows one. */
export interface ClusterDetail {
  cluster: Cluster;
  machines: { instances: InstanceStatus[]; runners_total: number; runners_available: number };
}

export interface ClusterServiceDeps {
  clusters: ClusterStore;
  access: ClusterAccess;
  instances: InstanceStore;
  status: ClusterStatus;
  termination: ClusterTermination;
  runners: RunnerRegistry;
  runnerTokens: RunnerTokens;
  users: UserLookup;
  policy: ClusterPolicyConfig;
}

/**
 * The clusters of the worker API (/2/clusters), one method per thing a user does. Who may do
 * what is cluster-access.ts's; a request's settings are checked by cluster-rules.ts.
 */
export class ClusterService {
  constructor(private readonly deps: ClusterServiceDeps) {}

  /** The default cluster first, then those the caller may see (an admin: every cluster). */
  async list(caller: ClusterCaller): Promise<Cluster[]> {
    const { clusters } = this.deps;
    const candidates = caller.admin ? await clusters.all() : await clusters.ofUser(caller.userId);
    return [defaultClusterView(), ...candidates.filter((cluster) => maySeeCluster(caller, cluster))];
  }

  async create(caller: ClusterCaller, input: ClusterInput): Promise<ClusterDetail> {
    await this.refuseOverClusterCap(caller);
    const base = { id: newObjectId(), user_id: caller.userId, now: Date.now() };
    const shared = await this.sharedTargets(input.shared_to);
    const { cluster, secrets } = resolveCluster(base, { ...input, ...shared }, this.policyOf(caller));
    await this.deps.clusters.create(cluster, secrets);
    await this.deps.clusters.invite(cluster);
    return this.detail(cluster);
  }

  async get(caller: ClusterCaller, clusterId: string): Promise<ClusterDetail> {
    return this.detail(await this.visible(caller, clusterId));
  }

  async update(caller: ClusterCaller, clusterId: string, input: ClusterInput): Promise<ClusterDetail> {
    const { id, user_id } = await this.owned(caller, clusterId);
    const shared = await this.sharedTargets(input.shared_to);
    const updated = await this.deps.clusters.update(id, (old: StoredCluster) =>
      resolveCluster({ id, user_id, now: Date.now() }, { ...input, ...shared }, this.policyOf(caller), old),
    );
    await this.deps.clusters.invite(updated);
    return this.detail(updated);
  }

  /** Deletes a cluster with no instance left but those being terminated, and revokes its runner tokens. */
  async delete(caller: ClusterCaller, clusterId: string): Promise<void> {
    const { id } = await this.owned(caller, clusterId);
    const active = (await this.deps.instances.list(id)).filter((instance) => instance.type !== 'TERMINATE');
    if (active.length > 0) throw fail('cluster_has_instances', id, active.length);
    await this.deps.clusters.delete(id);
    await this.deps.instances.forget(id);
    await this.deps.runnerTokens.revokeAll(id);
  }

  async stats(caller: ClusterCaller, clusterId: string): Promise<ClusterStats> {
    return this.deps.status.statsOf((await this.visible(caller, clusterId)).id);
  }

  /** Which host runs which task: for the cluster's owner (the default cluster: admins) only. */
  async runners(caller: ClusterCaller, clusterId: string): Promise<RunnerInstance[]> {
    const cluster = await this.visible(caller, clusterId);
    if (!mayManageCluster(caller, cluster)) throw fail('cluster_runners_owner_only', cluster.id);
    return (await this.deps.runners.runnersOf(cluster.id)).instances;
  }

  /** Asks every instance of the cluster to terminate; returns how many were asked. */
  async terminate(caller: ClusterCaller, clusterId: string): Promise<number> {
    const { id } = await this.owned(caller, clusterId);
    return this.deps.termination.killAll(id);
  }

  async createRunnerToken(caller: ClusterCaller, clusterId: string): Promise<RunnerTokenInfo & { token: string }> {
    const { id } = await this.tokenManaged(caller, clusterId);
    const cap = this.deps.policy.maxRunnerTokens;
    if ((await this.deps.runnerTokens.count(id)) >= cap) throw fail('cluster_runner_tokens_full', id, cap);
    return this.deps.runnerTokens.create(id);
  }

  async runnerTokens(caller: ClusterCaller, clusterId: string): Promise<RunnerTokenInfo[]> {
    const { id } = await this.tokenManaged(caller, clusterId);
    return this.deps.runnerTokens.list(id);
  }

  async revokeRunnerToken(caller: ClusterCaller, clusterId: string, tokenId: string): Promise<void> {
    const { id } = await this.tokenManaged(caller, clusterId);
    if (!(await this.deps.runnerTokens.revoke(id, tokenId))) throw fail('cluster_runner_token_not_found', id, tokenId);
  }

  private async detail(cluster: Cluster): Promise<ClusterDetail> {
    return { cluster, machines: await this.deps.status.instancesOf(cluster.id) };
  }

  /** A cluster the caller may see; one it may not is answered as one that does not exist. */
  private async visible(caller: ClusterCaller, clusterId: string): Promise<Cluster> {
    if (clusterId === DEFAULT_CLUSTER) return defaultClusterView();
    const stored = await this.deps.clusters.find(clusterId);
    if (!stored || !maySeeCluster(caller, stored.cluster)) throw fail('cluster_not_found', clusterId);
    return stored.cluster;
  }

  /** A cluster the caller owns; others see 404 if they may not even see it, 403 otherwise. */
  private async owned(caller: ClusterCaller, clusterId: string): Promise<Cluster> {
    const cluster = await this.visible(caller, clusterId);
    if (cluster.id === DEFAULT_CLUSTER) throw fail('cluster_default_unchangeable');
    if (!mayManageCluster(caller, cluster)) throw fail('cluster_owner_only', cluster.id);
    return cluster;
  }

  private async tokenManaged(caller: ClusterCaller, clusterId: string): Promise<Cluster> {
    const cluster = await this.visible(caller, clusterId);
    if (!mayManageRunnerTokens(caller, cluster)) throw fail('cluster_runner_tokens_owner_only', cluster.id);
    return cluster;
  }

  private policyOf(caller: ClusterCaller) {
    return { admin: caller.admin, ...this.deps.policy };
  }

  /** A tenant owns at most FERRUM_CLUSTER_TENANT_MAX_CLUSTERS clusters; admins are not capped. */
  private async refuseOverClusterCap(caller: ClusterCaller): Promise<void> {
    if (caller.admin) return;
    const owned = (await this.deps.clusters.ofUser(caller.userId)).filter(
      (cluster) => cluster.user_id === caller.userId,
    ).length;
    if (owned >= this.deps.policy.tenantMaxClusters) throw fail('cluster_tenant_cap_reached', owned);
  }

  /**
   * shared_to names users by id (400 for an unknown one) or by e-mail address: an address is
   * accepted whether or not a user has it (one created later gets the share), so no answer tells
   * which addresses exist. Stored as user ids, with the addresses beside them.
   */
  private async sharedTargets(
    names: string[] | undefined,
  ): Promise<{ shared_to?: string[]; shared_emails?: Record<string, string> }> {
    if (names === undefined) return {};
    const ids = new Set<string>();
    const emails: Record<string, string> = {};
    for (const name of names) {
      const email = name.includes('@') ? name.trim().toLowerCase() : null;
      const user = email ? await this.deps.users.findUserByEmail(email) : await this.deps.users.getUser(name);
      if (email) emails[email] = user?.id ?? '';
      else if (!user) throw fail('cluster_share_unknown_user', name);
      if (user) ids.add(user.id);
    }
    return { shared_to: [...ids], shared_emails: emails };
  }
}
