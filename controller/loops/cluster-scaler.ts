import type { Config } from '../../src/core/config.js';
import { newObjectId } from '../../src/core/ids.js';
import type { StoredCluster } from '../../src/worker/clusters/cluster-store.js';
import type { AutoscaleSettings, Cluster } from '../../src/worker/clusters/cluster-types.js';
import type { InstanceRecord } from '../../src/worker/clusters/instances/instance-store.js';
import { livenessMsOf, type RunnerInstance } from '../../src/worker/clusters/runners/runner-registry.js';
import { decideScaling, nextEwma, wantedInstances } from '../../src/worker/clusters/instances/scaling-plan.js';
import type { WorkerServices } from '../../src/worker/services.js';
import type { InstanceProvider } from '../providers/instance-provider.js';
import type { ProviderLogger } from '../providers/provider-factory.js';
import { runnerEnvOf } from './runner-env.js';

/** Whether a cluster's owner is an admin (not bound by the tenant rules). */
export type OwnerIsAdmin = (userId: string) => Promise<boolean>;

/** What one autoscaler pass may still launch over all clusters. */
export interface LaunchBudget {
  launches: number;
}

/** Instances that count as capacity: launched and not retired. */
const SERVING = new Set(['ADD', 'LIVE']);

/**
 * One autoscaler pass over one cluster: moves its instances along ADD → LIVE → KILL →
 * TERMINATE, updates its ewma, and launches or retires instances.
 */
export class ClusterScaler {
  constructor(
    private readonly config: Config,
    /** The runner API as launched runners reach it. */
    private readonly apiUrl: string,
    private readonly worker: WorkerServices,
    private readonly log: ProviderLogger & { info(details: object, message: string): void },
    private readonly ownerIsAdmin: OwnerIsAdmin,
  ) {}

  /** Clusters whose launches are refused now, so that the refusal is logged once, not every pass. */
  private readonly refused = new Set<string>();

  /**
   * `budget.launches` is what is left of the pass's launch allowance over all clusters
   * (FERRUM_AUTOSCALER_MAX_LAUNCH_PER_PASS); this cluster takes at most
   * FERRUM_AUTOSCALER_MAX_LAUNCH_PER_CLUSTER of it, the rest waits for later passes.
   */
  async pass(
    stored: StoredCluster,
    provider: InstanceProvider | null,
    budget: LaunchBudget = { launches: this.config.autoscaler.maxLaunchPerPass },
  ): Promise<void> {
    const clusterId = stored.cluster.id;
    const runners = await this.worker.runners.runnersOf(clusterId);
    const alive = new Map(runners.instances.map((runner) => [runner.instance_id, runner]));
    if (provider) await this.advanceLifecycle(clusterId, alive, provider);
    const demand =
      (await this.worker.distribution.queuedCount(clusterId)) +
      runners.instances.reduce((sum, runner) => sum + runner.busy, 0);
    const state = await this.worker.scaling.get(clusterId);
    const ewma = nextEwma(state.ewma, demand, this.config.autoscaler.ewmaAlpha);
    const { autoscale } = stored.cluster;
    if (!provider || autoscale.disable || provider.kind === 'static') {
      await this.worker.scaling.save(clusterId, { ewma, surplus_since: 0 });
      return;
    }
    const allowed = await this.allowedAutoscale(stored.cluster);
    if (!allowed) {
      await this.worker.scaling.save(clusterId, { ewma, surplus_since: 0 });
      return;
    }
    const serving = (await this.worker.instances.list(clusterId)).filter((record) => SERVING.has(record.type));
    const decision = decideScaling({
      wanted: wantedInstances(ewma, allowed),
      current: serving.length,
      surplusSince: state.surplus_since,
      now: Date.now(),
      cooldownMs: this.config.autoscaler.cooldownMs,
    });
    await this.worker.scaling.save(clusterId, { ewma, surplus_since: decision.surplusSince });
    const launches = Math.min(decision.launch, this.config.autoscaler.maxLaunchPerCluster, budget.launches);
    budget.launches -= launches;
    for (let i = 0; i < launches; i++) await this.launch(stored, provider);
    if (decision.retire > 0) await this.retire(clusterId, serving, alive);
  }

  /**
   * The tenant rules (FERRUM_CLUSTER_TENANT_*) checked again at every pass, not only when the
   * cluster was saved: a tenant's cluster made under looser settings launches nothing with a
   * provider tenants may no longer use, and no more than today's runner cap. Null: no launches.
   */
  private async allowedAutoscale(cluster: Cluster): Promise<AutoscaleSettings | null> {
    const { autoscale } = cluster;
    const { tenantProviders, tenantMaxRunners } = this.config.clusters;
    if (!cluster.user_id || (await this.ownerIsAdmin(cluster.user_id))) return autoscale;
    if (!tenantProviders.includes(autoscale.provider)) {
      if (!this.refused.has(cluster.id))
        this.log.info(
          { cluster: cluster.id, provider: autoscale.provider },
          `not launching: autoscale.provider ${autoscale.provider} is for operators only and the cluster's owner is not an admin`,
        );
      this.refused.add(cluster.id);
      return null;
    }
    this.refused.delete(cluster.id);
    return {
      ...autoscale,
      runners_min: Math.min(autoscale.runners_min, tenantMaxRunners),
      runners_max: Math.min(autoscale.runners_max, tenantMaxRunners),
    };
  }

  private async advanceLifecycle(
    clusterId: string,
    alive: Map<string, RunnerInstance>,
    provider: InstanceProvider,
  ): Promise<void> {
    const now = Date.now();
    const { bootTimeoutMs, terminatedRetentionMs } = this.config.autoscaler;
    const forgotten: string[] = [];
    for (const record of await this.worker.instances.list(clusterId)) {
      const up = alive.has(record.instance_id);
      if (record.type === 'ADD' && up) await this.worker.instances.move(clusterId, record.instance_id, ['ADD'], 'LIVE');
      else if (record.type === 'ADD' && now - record.created_at > bootTimeoutMs)
        await this.kill(record, 'its runner did not register in time');
      else if (record.type === 'LIVE' && !up) await this.kill(record, 'its runner stopped heartbeating');
      // A KILL runner missing for less than a liveness period may only have missed a heartbeat: it gets the time to come back and drain.
      else if (record.type === 'KILL' && !up && now - record.updated_at >= livenessMsOf(this.config.runner.heartbeatMs))
        await this.terminate(record, provider);
      else if (record.type === 'TERMINATE' && now - record.updated_at > terminatedRetentionMs)
        forgotten.push(record.instance_id);
    }
    await this.worker.instances.remove(clusterId, forgotten);
  }

  private async kill(record: InstanceRecord, reason: string): Promise<void> {
    if (await this.worker.instances.move(record.cluster, record.instance_id, [record.type], 'KILL')) {
      this.log.info({ cluster: record.cluster, instance: record.instance_id, reason }, 'instance set to KILL');
    }
  }

  /** A KILL instance whose runner has finished (or never came up) is terminated with the provider. */
  private async terminate(record: InstanceRecord, provider: InstanceProvider): Promise<void> {
    if (record.provider_id) await provider.terminate(record.cluster, record.provider_id);
    await this.worker.runnerTokens.revokeInstance(record.cluster, record.instance_id);
    if (await this.worker.instances.move(record.cluster, record.instance_id, ['KILL'], 'TERMINATE')) {
      this.log.info({ cluster: record.cluster, instance: record.instance_id }, 'instance terminated');
    }
  }

  private async launch(stored: StoredCluster, provider: InstanceProvider): Promise<void> {
    const { id: clusterId, autoscale, memory } = stored.cluster;
    const now = Date.now();
    const record: InstanceRecord = {
      instance_id: newObjectId(),
      cluster: clusterId,
      provider_id: '',
      type: 'ADD',
      runners: autoscale.runners_per_instance,
      created_at: now,
      updated_at: now,
    };
    // The record comes first: the runner looks its instance up as soon as it starts.
    await this.worker.instances.add(record);
    try {
      // A token of its own, bound to this instance and revoked when it terminates: never Redis or the key.
      const { token } = await this.worker.runnerTokens.create(clusterId, record.instance_id);
      const runnerEnv = runnerEnvOf(this.config, {
        apiUrl: this.apiUrl,
        runnerToken: token,
        clusterId,
        instanceId: record.instance_id,
        slots: record.runners,
        memoryBytes: memory,
      });
      const launched = await provider.launch({
        clusterId,
        instanceId: record.instance_id,
        runners: record.runners,
        runnerEnv,
      });
      await this.worker.instances.setProviderId(
        clusterId,
        record.instance_id,
        ['ADD', 'LIVE', 'KILL'],
        launched.providerId,
      );
      this.log.info(
        { cluster: clusterId, instance: record.instance_id, provider: provider.kind, providerId: launched.providerId },
        'instance launched',
      );
    } catch (error) {
      await this.worker.instances.move(clusterId, record.instance_id, ['ADD'], 'TERMINATE');
      await this.worker.runnerTokens.revokeInstance(clusterId, record.instance_id);
      this.log.warn({ err: error, cluster: clusterId, instance: record.instance_id }, 'instance launch failed');
    }
  }

  /** Retires the instance with the least work: one not yet up, else the least busy runner. */
  private async retire(
    clusterId: string,
    serving: InstanceRecord[],
    alive: Map<string, RunnerInstance>,
  ): Promise<void> {
    const busyOf = (record: InstanceRecord) =>
      record.type === 'ADD' ? -1 : (alive.get(record.instance_id)?.busy ?? 0);
    const [victim] = [...serving].sort((a, b) => busyOf(a) - busyOf(b));
    if (victim) await this.kill(victim, 'the cluster has more instances than it needs');
  }
}
