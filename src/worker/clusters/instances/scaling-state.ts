import type { RedisClient } from '../../../core/redis.js';
import type { WorkerKeys } from '../../keys.js';

/** The autoscaler's memory of one cluster between passes. */
export interface ScalingState {
  /** Smoothed demand in runners (queued + busy). */
  ewma: number;
  /** Since when (ms) the cluster has had more instances than it wants; 0 when it has not. */
  surplus_since: number;
}

export class ScalingStates {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
  ) {}

  async get(cluster: string): Promise<ScalingState> {
    const [ewma, surplusSince] = await this.redis.hmget(this.keys.clusterScaling(cluster), 'ewma', 'surplus_since');
    return { ewma: Number(ewma ?? 0), surplus_since: Number(surplusSince ?? 0) };
  }

  async save(cluster: string, state: ScalingState): Promise<void> {
    await this.redis.hset(
      this.keys.clusterScaling(cluster),
      'ewma',
      String(state.ewma),
      'surplus_since',
      String(state.surplus_since),
    );
  }
}
