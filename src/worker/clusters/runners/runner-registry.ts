import type { RedisClient } from '../../../core/redis.js';
import type { WorkerKeys } from '../../keys.js';

/** How long a runner's liveness, and the concurrency slots it holds, last without a heartbeat. */
export function livenessMsOf(heartbeatMs: number): number {
  return heartbeatMs * 3;
}

/** One runner process as its cluster sees it. */
export interface RunnerInstance {
  instance_id: string;
  cluster: string;
  hostname: string;
  slots: number;
  busy: number;
  /** Ids of the tasks it runs now (as of its last heartbeat). */
  tasks?: string[];
  version: string;
  created_at: number;
  updated_at: number;
  expires_at: number;
}

export interface ClusterRunners {
  /** Slots of alive runners, busy or not. */
  runners_total: number;
  /** Free slots of alive runners. */
  runners_available: number;
  instances: RunnerInstance[];
}

/** Runners register and heartbeat per cluster; a runner that stops heartbeating expires. */
export class RunnerRegistry {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
  ) {}

  async heartbeat(instance: RunnerInstance, ttlMs: number): Promise<void> {
    const now = Date.now();
    const record: RunnerInstance = { ...instance, updated_at: now, expires_at: now + ttlMs };
    await this.redis
      .multi()
      .set(this.keys.runnerAlive(instance.cluster, instance.instance_id), String(now), 'PX', ttlMs)
      .hset(this.keys.clusterInstances(instance.cluster), instance.instance_id, JSON.stringify(record))
      .exec();
  }

  async deregister(cluster: string, runnerId: string): Promise<void> {
    await this.redis
      .multi()
      .del(this.keys.runnerAlive(cluster, runnerId))
      .hdel(this.keys.clusterInstances(cluster), runnerId)
      .exec();
  }

  /** The runner's record as of its last heartbeat (null once deregistered or never seen). */
  async instance(cluster: string, runnerId: string): Promise<RunnerInstance | null> {
    const json = await this.redis.hget(this.keys.clusterInstances(cluster), runnerId);
    return json ? (JSON.parse(json) as RunnerInstance) : null;
  }

  async isAlive(cluster: string, runnerId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.runnerAlive(cluster, runnerId))) === 1;
  }

  async runnersOf(cluster: string): Promise<ClusterRunners> {
    const all = await this.redis.hgetall(this.keys.clusterInstances(cluster));
    const now = Date.now();
    const instances: RunnerInstance[] = [];
    const expired: string[] = [];
    for (const [id, json] of Object.entries(all)) {
      const instance = JSON.parse(json) as RunnerInstance;
      if (instance.expires_at > now) instances.push(instance);
      else expired.push(id);
    }
    if (expired.length > 0) await this.redis.hdel(this.keys.clusterInstances(cluster), ...expired);
    return {
      runners_total: instances.reduce((sum, instance) => sum + instance.slots, 0),
      runners_available: instances.reduce((sum, instance) => sum + Math.max(0, instance.slots - instance.busy), 0),
      instances,
    };
  }
}
