import type { RedisClient } from '../../../core/redis.js';
import type { WorkerKeys } from '../../keys.js';

/** A task a gateway runner holds: the controller keeps its BullMQ job locked while the runner heartbeats. */
export interface GatewayLease {
  project_id: string;
  task_id: string;
  code_id: string;
  job_id: string;
  /** The BullMQ lock token the controller took the job with. */
  lock: string;
  /** The container's task token, once the task runs (revoked at release). */
  task_token?: string;
  taken_at: number;
}

/** The leases of each gateway runner: a hash per runner that lapses with the runner. */
export class GatewayLeases {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
  ) {}

  async put(cluster: string, runnerId: string, lease: GatewayLease, ttlMs: number): Promise<void> {
    const key = this.keys.gatewayLeases(cluster, runnerId);
    await this.redis.multi().hset(key, lease.task_id, JSON.stringify(lease)).pexpire(key, ttlMs).exec();
  }

  async get(cluster: string, runnerId: string, taskId: string): Promise<GatewayLease | null> {
    const json = await this.redis.hget(this.keys.gatewayLeases(cluster, runnerId), taskId);
    return json ? (JSON.parse(json) as GatewayLease) : null;
  }

  async all(cluster: string, runnerId: string): Promise<GatewayLease[]> {
    const all = await this.redis.hvals(this.keys.gatewayLeases(cluster, runnerId));
    return all.map((json) => JSON.parse(json) as GatewayLease);
  }

  /** Keeps the runner's leases as long as it heartbeats. */
  async touch(cluster: string, runnerId: string, ttlMs: number): Promise<void> {
    await this.redis.pexpire(this.keys.gatewayLeases(cluster, runnerId), ttlMs);
  }

  async drop(cluster: string, runnerId: string, taskId: string): Promise<boolean> {
    return (await this.redis.hdel(this.keys.gatewayLeases(cluster, runnerId), taskId)) === 1;
  }
}
