import type { RedisClient } from '../../../core/redis.js';
import { scripts } from '../scripts.js';
import type { WorkerKeys } from '../../keys.js';

/** ADD: launched, its runner not up yet; LIVE: its runner takes tasks; KILL: finishing its tasks before it goes; TERMINATE: gone. */
export const INSTANCE_TYPES = ['ADD', 'LIVE', 'KILL', 'TERMINATE'] as const;
export type InstanceType = (typeof INSTANCE_TYPES)[number];

/** The autoscaler's record of one instance it launched. */
export interface InstanceRecord {
  instance_id: string;
  cluster: string;
  /** The provider's own id (container id, EC2 instance id); empty until the launch answers. */
  provider_id: string;
  type: InstanceType;
  /** Task slots the instance's runner offers. */
  runners: number;
  created_at: number;
  updated_at: number;
}

/** Instance records per cluster: one hash of instance id → record JSON. */
export class InstanceStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
  ) {}

  async add(record: InstanceRecord): Promise<void> {
    await this.redis.hset(this.keys.clusterMachines(record.cluster), record.instance_id, JSON.stringify(record));
  }

  async list(cluster: string): Promise<InstanceRecord[]> {
    const all = await this.redis.hvals(this.keys.clusterMachines(cluster));
    return all.map((json) => JSON.parse(json) as InstanceRecord).sort((a, b) => a.created_at - b.created_at);
  }

  async typeOf(cluster: string, instanceId: string): Promise<InstanceType | undefined> {
    const json = await this.redis.hget(this.keys.clusterMachines(cluster), instanceId);
    return json ? (JSON.parse(json) as InstanceRecord).type : undefined;
  }

  /** Moves the instance to `type` if its type is one of `from`; returns whether it moved. */
  async move(cluster: string, instanceId: string, from: InstanceType[], type: InstanceType): Promise<boolean> {
    return this.update(cluster, instanceId, from, { type });
  }

  /** Records the provider's id for an instance still in one of `from`. */
  async setProviderId(cluster: string, instanceId: string, from: InstanceType[], providerId: string): Promise<boolean> {
    return this.update(cluster, instanceId, from, { providerId });
  }

  private async update(
    cluster: string,
    instanceId: string,
    from: InstanceType[],
    change: { type?: InstanceType; providerId?: string },
  ): Promise<boolean> {
    const args = [instanceId, change.type ?? '', change.providerId ?? '', Date.now(), ...from];
    return (await scripts.updateInstance.run<number>(this.redis, [this.keys.clusterMachines(cluster)], args)) === 1;
  }

  async remove(cluster: string, instanceIds: string[]): Promise<void> {
    if (instanceIds.length > 0) await this.redis.hdel(this.keys.clusterMachines(cluster), ...instanceIds);
  }

  /** Drops the cluster's instance records and autoscaler figures (the cluster is deleted). */
  async forget(cluster: string): Promise<void> {
    await this.redis.del(this.keys.clusterMachines(cluster), this.keys.clusterScaling(cluster));
  }
}
