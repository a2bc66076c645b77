import type { RedisClient } from '../../../core/redis.js';
import { Queue } from 'bullmq';
import type { WorkerKeys } from '../../keys.js';
import type { Task } from '../../types.js';
import { scripts } from '../scripts.js';

/** What a BullMQ job carries: only where the task record is. */
export interface TaskJob {
  project_id: string;
  task_id: string;
}

const JOB_NAME = 'task';

function dueAt(task: Task): number {
  return task.created_at + task.delay * 1000;
}

/** A job's data as BullMQ stores it (JSON.stringify of a TaskJob), built without the object. */
function jobDataOf(task: Task): string {
  return `{"project_id":${JSON.stringify(task.project_id)},"task_id":${JSON.stringify(task.id)}}`;
}

/** BullMQ queue name of a cluster; the braces keep a queue's keys in one Redis Cluster slot. */
export function queueNameOf(cluster: string): string {
  return `{${cluster}}`;
}

/** Task priority 0..2 (2 most urgent) → BullMQ priority (1 most urgent). */
export function bullPriority(priority: number): number {
  return 3 - priority;
}

/** One BullMQ queue per cluster, under the prefix <keys>tasks. */
export class TaskDistribution {
  private readonly queues = new Map<string, Queue<TaskJob>>();

  constructor(
    /** The connection every queue of this distribution adds its jobs through. */
    readonly connection: RedisClient,
    private readonly keys: WorkerKeys,
  ) {}

  private queueOf(cluster: string): Queue<TaskJob> {
    let queue = this.queues.get(cluster);
    if (!queue) {
      queue = new Queue<TaskJob>(queueNameOf(cluster), { connection: this.connection, prefix: this.keys.bullPrefix() });
      // Without a listener BullMQ prints each connection error with console.error (a stack per
      // reconnect); the shared connection already logs its state changes through the JSON logger.
      queue.on('error', () => {});
      this.queues.set(cluster, queue);
    }
    return queue;
  }

  /**
   * Adds a job per task, due at created_at + delay. `jobIdSuffix` gives jobs of tasks queued
   * again (after a pause) ids of their own, as the job that set them aside may still exist.
   */
  async add(tasks: Task[], jobIdSuffix = ''): Promise<void> {
    const now = Date.now();
    const byCluster = new Map<string, Task[]>();
    for (const task of tasks) {
      const group = byCluster.get(task.cluster);
      if (group) group.push(task);
      else byCluster.set(task.cluster, [task]);
    }
    if (byCluster.size === 0) return;
    // Sent with the jobs rather than before them: one round trip, not two.
    const adds: Promise<unknown>[] = [this.connection.sadd(this.keys.clusters(), ...byCluster.keys())];
    for (const [cluster, group] of byCluster) {
      const dueNow: Task[] = [];
      const later: Task[] = [];
      for (const task of group) (dueAt(task) <= now ? dueNow : later).push(task);
      if (dueNow.length > 0) adds.push(this.addDueNow(cluster, dueNow, jobIdSuffix, now));
      if (later.length > 0) adds.push(this.addDelayed(cluster, later, jobIdSuffix, now));
    }
    await Promise.all(adds);
  }

  /** Jobs due now: one add-task-jobs.lua run for the cluster's whole group. */
  private addDueNow(cluster: string, tasks: Task[], jobIdSuffix: string, now: number): Promise<unknown> {
    const keys = this.queueOf(cluster).keys;
    const args: string[] = [keys['']!, String(now), JOB_NAME];
    for (const task of tasks) {
      const jobId = `${task.id}${jobIdSuffix}`;
      args.push(jobId, String(bullPriority(task.priority)), jobDataOf(task));
    }
    const queueKeys = [keys.marker, keys.meta, keys.id, keys.prioritized, keys.active, keys.events, keys.pc];
    return scripts.addTaskJobs.run(this.connection, queueKeys as string[], args);
  }

  /** Jobs due later, through BullMQ's own addBulk (its delayed set and delay marker). */
  private addDelayed(cluster: string, later: Task[], jobIdSuffix: string, now: number): Promise<unknown> {
    return this.queueOf(cluster).addBulk(
      later.map((task) => ({
        name: JOB_NAME,
        data: { project_id: task.project_id, task_id: task.id },
        // Finished jobs are removed by the runners' Worker options (removeOnComplete/Fail).
        opts: { jobId: `${task.id}${jobIdSuffix}`, delay: dueAt(task) - now, priority: bullPriority(task.priority) },
      })),
    );
  }

  /** Drops a job that no runner holds yet; a held one is left to see the record's status. */
  async remove(cluster: string, taskId: string): Promise<void> {
    try {
      await this.queueOf(cluster).remove(taskId);
    } catch {
      // A runner holds the job (BullMQ refuses to remove locked jobs): it reads the record and skips it.
    }
  }

  async queuedCount(cluster: string): Promise<number> {
    return this.queueOf(cluster).getJobCountByTypes('wait', 'prioritized', 'delayed');
  }

  /** Jobs of a cluster waiting for a runner (due or delayed) and held by runners now. */
  async jobCounts(cluster: string): Promise<{ queued: number; active: number }> {
    const counts = await this.queueOf(cluster).getJobCounts('wait', 'prioritized', 'delayed', 'active');
    return {
      queued: (counts.wait ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0),
      active: counts.active ?? 0,
    };
  }

  /**
   * When the longest-waiting due job of a cluster became due (epoch ms), looked for among the first
   * `sample` jobs in the order runners take them (priority, then age); null when none is due.
   */
  async oldestDueAt(cluster: string, sample = 200): Promise<number | null> {
    const jobs = await this.queueOf(cluster).getJobs(['prioritized', 'wait'], 0, sample - 1, true);
    let oldest: number | null = null;
    for (const job of jobs) {
      if (!job) continue;
      const dueAt = job.timestamp + (job.opts.delay ?? 0);
      if (oldest === null || dueAt < oldest) oldest = dueAt;
    }
    return oldest;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    this.queues.clear();
  }
}
