import type { RedisClient } from '../core/redis.js';
import type { FunctionKeys } from './keys.js';
import { scripts } from './scripts.js';

/**
 * The dispatch queue of one cluster's function calls: controllers push call messages on a
 * Redis list; a runner moves each into its own in-flight list (BLMOVE) and removes it only
 * once the call has finished, so the calls of a runner that dies are given back and re-run.
 */
export class CallQueue {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FunctionKeys,
  ) {}

  async push(cluster: string, message: string): Promise<void> {
    await this.redis.lpush(this.keys.pending(cluster), message);
  }

  /** Takes a message back before any runner took it; false when one already has. */
  async withdraw(cluster: string, message: string): Promise<boolean> {
    return (await this.redis.lrem(this.keys.pending(cluster), 1, message)) === 1;
  }

  /** Records that `runnerId` may hold in-flight calls, so they can be reclaimed if it dies. */
  async hold(cluster: string, runnerId: string): Promise<void> {
    await this.redis.sadd(this.keys.holders(cluster), runnerId);
  }

  /** Waits up to `timeoutSeconds` for a message on `connection` (a connection of its own: it blocks). */
  async take(
    connection: RedisClient,
    cluster: string,
    runnerId: string,
    timeoutSeconds: number,
  ): Promise<string | null> {
    return connection.blmove(
      this.keys.pending(cluster),
      this.keys.inFlight(cluster, runnerId),
      'RIGHT',
      'LEFT',
      timeoutSeconds,
    );
  }

  async done(cluster: string, runnerId: string, message: string): Promise<void> {
    await this.redis.lrem(this.keys.inFlight(cluster, runnerId), 1, message);
  }

  /** Gives a stopping runner's unfinished calls back to the queue; it holds none afterwards. */
  async giveBack(cluster: string, runnerId: string): Promise<number> {
    const keys = [this.keys.inFlight(cluster, runnerId), this.keys.pending(cluster), this.keys.holders(cluster)];
    return scripts.reclaimCalls.run<number>(this.redis, keys, [runnerId]);
  }

  /** Gives the in-flight calls of every holder that `isAlive` says is gone back to the queue. */
  async reclaim(cluster: string, isAlive: (runnerId: string) => Promise<boolean>): Promise<number> {
    let moved = 0;
    for (const runnerId of await this.redis.smembers(this.keys.holders(cluster))) {
      if (await isAlive(runnerId)) continue;
      moved += await this.giveBack(cluster, runnerId);
    }
    return moved;
  }
}
