import { randomUUID } from 'node:crypto';
import { Job, Worker } from 'bullmq';
import type { Config } from '../../../core/config.js';
import { FailureLog, type StateLogger } from '../../../core/failure-log.js';
import { createRedisClient, type RedisClient } from '../../../core/redis.js';
import { queueNameOf, type TaskJob } from '../queues/distribution.js';
import type { GatewayLease } from './gateway-leases.js';
import type { WorkerKeys } from '../../keys.js';

/** A BullMQ job the controller took for a gateway runner, with the lock token it holds it by. */
export interface LockedJob {
  job: Job<TaskJob>;
  lock: string;
}

interface Waiter {
  resolve(job: LockedJob | null): void;
}

/**
 * One cluster's queue as gateway runners see it: a BullMQ Worker without a processor (manual
 * job processing) whose blocking fetch hands each job to the longest waiting long-poll. Its
 * stalled check gives back the jobs of runners that stopped heartbeating, as for direct runners.
 */
class ClusterPump {
  private readonly waiters: Waiter[] = [];
  private pumping = false;
  private readonly health: FailureLog;

  constructor(
    readonly worker: Worker<TaskJob>,
    cluster: string,
    log: StateLogger,
  ) {
    this.health = new FailureLog(log, `taking tasks of cluster ${cluster} for gateway runners`, 200);
  }

  /** The next job, or null once `waitMs` pass or `signal` aborts first. */
  next(waitMs: number, signal: AbortSignal): Promise<LockedJob | null> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve: (job) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', leave);
          resolve(job);
        },
      };
      const leave = () => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        waiter.resolve(null);
      };
      const timer = setTimeout(leave, waitMs);
      signal.addEventListener('abort', leave, { once: true });
      this.waiters.push(waiter);
      void this.pump();
    });
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.waiters.length > 0 && !this.worker.closing) {
        const lock = randomUUID();
        let job: Job<TaskJob> | undefined;
        try {
          job = await this.worker.getNextJob(lock, { block: true });
        } catch (error) {
          await new Promise((resolve) => setTimeout(resolve, this.health.failed(error)));
          continue;
        }
        this.health.succeeded();
        if (!job) continue;
        const waiter = this.waiters.shift();
        if (waiter) waiter.resolve({ job, lock });
        else await job.moveToDelayed(Date.now(), lock).catch(() => {});
      }
    } finally {
      this.pumping = false;
    }
  }
}

/** The manual BullMQ Workers the runner API takes, locks and completes jobs with, one per cluster. */
export class GatewayJobs {
  private readonly pumps = new Map<string, ClusterPump>();
  private readonly connection: RedisClient;

  constructor(
    private readonly config: Config,
    redisUrl: string,
    private readonly keys: WorkerKeys,
    private readonly log: StateLogger,
    onRedisError?: (kind: string) => void,
  ) {
    this.connection = createRedisClient(redisUrl, 'runner-api-bullmq', {
      maxRetriesPerRequest: null,
      enableAutoPipelining: false,
      ...(onRedisError ? { onError: onRedisError } : {}),
      log,
    });
  }

  private pumpOf(cluster: string): ClusterPump {
    let pump = this.pumps.get(cluster);
    if (!pump) {
      const { lockMs, stalledCheckMs } = this.config.runner;
      const worker = new Worker<TaskJob>(queueNameOf(cluster), null, {
        connection: this.connection,
        prefix: this.keys.bullPrefix(),
        autorun: false,
        lockDuration: lockMs,
        stalledInterval: stalledCheckMs,
        maxStalledCount: 100,
        drainDelay: 1,
        removeOnComplete: { count: 0 },
        removeOnFail: { count: 0 },
      });
      // The connection logs its own state changes; the fetch loop logs its failing and recovery.
      worker.on('error', () => {});
      void worker.startStalledCheckTimer();
      pump = new ClusterPump(worker, cluster, this.log);
      this.pumps.set(cluster, pump);
    }
    return pump;
  }

  next(cluster: string, waitMs: number, signal: AbortSignal): Promise<LockedJob | null> {
    return this.pumpOf(cluster).next(waitMs, signal);
  }

  /** A job taken but not handed to a runner goes back to the queue, after `delayMs`, no attempt counted. */
  async requeue(taken: LockedJob, delayMs = 0): Promise<void> {
    // A lock lost to the stalled check means the job went back already.
    await taken.job.moveToDelayed(Date.now() + delayMs, taken.lock).catch(() => {});
  }

  /** A job whose task is not to be run (ended, or gone) leaves the queue. */
  async discard(taken: LockedJob): Promise<void> {
    await taken.job.moveToCompleted(null, taken.lock, false).catch(() => {});
  }

  private async jobOf(cluster: string, lease: GatewayLease): Promise<Job<TaskJob> | undefined> {
    return Job.fromId<TaskJob>(this.pumpOf(cluster).worker, lease.job_id);
  }

  async extendLock(cluster: string, lease: GatewayLease, lockMs: number): Promise<void> {
    const job = await this.jobOf(cluster, lease);
    if (job) await job.extendLock(lease.lock, lockMs);
  }

  /** The job of a task its runner never started goes back to the queue, no attempt counted. */
  async giveBack(cluster: string, lease: GatewayLease): Promise<void> {
    const job = await this.jobOf(cluster, lease);
    // A lock lost to the stalled check means the job went back already.
    if (job) await job.moveToDelayed(Date.now(), lease.lock).catch(() => {});
  }

  /** The job of a task whose run is over leaves the queue (as a direct runner's processor returning). */
  async complete(cluster: string, lease: GatewayLease): Promise<void> {
    const job = await this.jobOf(cluster, lease);
    // A lock lost to the stalled check means the job went back: the next taker sees the record's status.
    if (job) await job.moveToCompleted(null, lease.lock, false).catch(() => {});
  }

  async close(): Promise<void> {
    await Promise.all([...this.pumps.values()].map((pump) => pump.worker.close()));
    this.pumps.clear();
    this.connection.disconnect();
  }
}
