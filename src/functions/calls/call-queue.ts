import type { RedisClient } from '../../core/redis.js';
import type { FunctionKeys } from '../keys.js';
import { scripts } from '../scripts.js';

/** Whose call a message is: the queue keeps one line per app, and turns between projects and apps. */
export interface CallOwner {
  appName: string;
  projectId: string;
}

/** Most wake tokens kept: enough for every runner to look again, however many calls came. */
const MAX_WAKE_TOKENS = 1000;

/**
 * The dispatch queue of one cluster's function calls: controllers queue call messages on a Redis
 * list per app; runners take them in turn across projects, then across each project's apps
 * (push-call.lua, take-call.lua), so one tenant's flood delays only its own calls. A runner moves
 * each message into its own in-flight list and removes it only once the call has finished, so
 * the calls of a runner that dies are given back and re-run. Every key of the queue shares the
 * cluster's hash tag.
 */
export class CallQueue {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FunctionKeys,
  ) {}

  private lineKeys(cluster: string, owner: CallOwner): string[] {
    return [
      this.keys.appPending(cluster, owner.appName),
      this.keys.queuedApps(cluster, owner.projectId),
      this.keys.queuedProjects(cluster),
    ];
  }

  async push(cluster: string, owner: CallOwner, message: string): Promise<void> {
    const keys = [...this.lineKeys(cluster, owner), this.keys.wake(cluster)];
    await scripts.pushCall.run(this.redis, keys, [message, owner.appName, owner.projectId, MAX_WAKE_TOKENS]);
  }

  /** Takes a message back before any runner took it; false when one already has. */
  async withdraw(cluster: string, owner: CallOwner, message: string): Promise<boolean> {
    const keys = this.lineKeys(cluster, owner);
    return (await scripts.withdrawCall.run<number>(this.redis, keys, [message, owner.appName, owner.projectId])) === 1;
  }

  /** Records that `runnerId` may hold in-flight calls, so they can be reclaimed if it dies. */
  async hold(cluster: string, runnerId: string): Promise<void> {
    await this.redis.sadd(this.keys.holders(cluster), runnerId);
  }

  /** The next call in turn, moved in flight; null when none is queued but of the projects to skip. */
  async take(cluster: string, runnerId: string, skipProjects: Iterable<string>): Promise<string | null> {
    const keys = [this.keys.queuedProjects(cluster), this.keys.inFlight(cluster, runnerId), this.keys.pending(cluster)];
    const prefixes = [this.keys.queuedApps(cluster, ''), this.keys.appPending(cluster, '')];
    return scripts.takeCall.run<string | null>(this.redis, keys, [...prefixes, ...skipProjects]);
  }

  /**
   * Waits up to `timeoutSeconds` for a call to be queued, on `connection` (a connection of its
   * own: it blocks); true when one was (it may be taken by another runner first).
   */
  async waitForCalls(connection: RedisClient, cluster: string, timeoutSeconds: number): Promise<boolean> {
    return (await connection.blpop(this.keys.wake(cluster), timeoutSeconds)) !== null;
  }

  /** Wakes one waiting runner: calls it skipped may be taken now. */
  async wake(cluster: string): Promise<void> {
    await this.redis.lpush(this.keys.wake(cluster), '1');
  }

  async done(cluster: string, runnerId: string, message: string): Promise<void> {
    await this.redis.lrem(this.keys.inFlight(cluster, runnerId), 1, message);
  }

  /** Gives a stopping runner's unfinished calls back to the queue; it holds none afterwards. */
  async giveBack(cluster: string, runnerId: string): Promise<number> {
    const keys = [this.keys.inFlight(cluster, runnerId), this.keys.queuedProjects(cluster), this.keys.holders(cluster)];
    const prefixes = [this.keys.queuedApps(cluster, ''), this.keys.appPending(cluster, '')];
    return scripts.reclaimCalls.run<number>(this.redis, keys, [runnerId, ...prefixes]);
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
