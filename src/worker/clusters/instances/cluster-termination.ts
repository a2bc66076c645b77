import type { InstanceStore } from './instance-store.js';
import type { RunnerRegistry } from '../runners/runner-registry.js';

/**
 * Terminating a cluster's instances: each goes to KILL (its runner stops taking tasks and
 * finishes the running ones); the autoscaler terminates it with the provider once drained.
 */
export class ClusterTermination {
  constructor(
    private readonly instances: InstanceStore,
    private readonly runners: RunnerRegistry,
  ) {}

  /** Returns how many instances were set to KILL. */
  async killAll(cluster: string): Promise<number> {
    const [records, runners] = await Promise.all([this.instances.list(cluster), this.runners.runnersOf(cluster)]);
    let killed = 0;
    for (const record of records) {
      if (await this.instances.move(cluster, record.instance_id, ['ADD', 'LIVE'], 'KILL')) killed++;
    }
    // Runners that registered by themselves get a KILL record of their own: they obey it as well.
    const recorded = new Set(records.map((record) => record.instance_id));
    for (const runner of runners.instances.filter((one) => !recorded.has(one.instance_id))) {
      const now = Date.now();
      await this.instances.add({
        instance_id: runner.instance_id,
        cluster,
        provider_id: runner.instance_id,
        type: 'KILL',
        runners: runner.slots,
        created_at: runner.created_at,
        updated_at: now,
      });
      killed++;
    }
    return killed;
  }
}
