import type { TaskDistribution } from '../../tasks/queues/distribution.js';
import type { InstanceRecord, InstanceStore, InstanceType } from './instance-store.js';
import type { RunnerInstance, RunnerRegistry } from '../runners/runner-registry.js';
import type { ScalingStates } from './scaling-state.js';

/** One instance as stats show it: its record joined with its runner's figures. */
export interface InstanceStatus {
  instance_id: string;
  type: InstanceType;
  runners_total: number;
  runners_available: number;
  version: string;
  created_at: number;
  updated_at: number;
}

export interface ClusterStats {
  ewma: number;
  queued: number;
  runners_total: number;
  runners_available: number;
  instances: InstanceStatus[];
}

function statusOf(record: InstanceRecord | undefined, runner: RunnerInstance | undefined): InstanceStatus {
  return {
    instance_id: record?.instance_id ?? runner!.instance_id,
    // A runner that registered by itself (static clusters, the default one) is a LIVE instance.
    type: record?.type ?? 'LIVE',
    runners_total: runner?.slots ?? 0,
    runners_available: runner ? Math.max(0, runner.slots - runner.busy) : 0,
    version: runner?.version ?? '',
    created_at: record?.created_at ?? runner!.created_at,
    updated_at: Math.max(record?.updated_at ?? 0, runner?.updated_at ?? 0),
  };
}

/** A cluster's current state from its instance records, registered runners and task queue. */
export class ClusterStatus {
  constructor(
    private readonly instances: InstanceStore,
    private readonly runners: RunnerRegistry,
    private readonly distribution: TaskDistribution,
    private readonly scaling: ScalingStates,
  ) {}

  async instancesOf(
    cluster: string,
  ): Promise<{ instances: InstanceStatus[]; runners_total: number; runners_available: number }> {
    const [records, runners] = await Promise.all([this.instances.list(cluster), this.runners.runnersOf(cluster)]);
    const runnerById = new Map(runners.instances.map((runner) => [runner.instance_id, runner]));
    const recorded = new Set(records.map((record) => record.instance_id));
    const instances = [
      ...records.map((record) => statusOf(record, runnerById.get(record.instance_id))),
      ...runners.instances
        .filter((runner) => !recorded.has(runner.instance_id))
        .map((runner) => statusOf(undefined, runner)),
    ];
    return { instances, runners_total: runners.runners_total, runners_available: runners.runners_available };
  }

  async statsOf(cluster: string): Promise<ClusterStats> {
    const [machines, queued, scaling] = await Promise.all([
      this.instancesOf(cluster),
      this.distribution.queuedCount(cluster),
      this.scaling.get(cluster),
    ]);
    return { ewma: scaling.ewma, queued, ...machines };
  }
}
