import { fail } from '../../../core/errors.js';
import { livenessMsOf } from '../../clusters/runners/runner-registry.js';
import type { Task } from '../../types.js';
import type { WorkerServices } from '../../services.js';
import type { GatewayJobs } from './gateway-jobs.js';
import type { GatewayLease } from './gateway-leases.js';

/** Which task of which runner: the runner API's task routes' path parameters. */
export interface HeldTaskRef {
  cluster_id: string;
  instance_id: string;
  task_id: string;
}

/** The tasks gateway runners hold: their leases and BullMQ jobs, as the runner API's routes share them (built once by the composition root). */
export class HeldTasks {
  constructor(
    private readonly worker: WorkerServices,
    readonly jobs: GatewayJobs,
    private readonly lockMs: number,
  ) {}

  /** Leases and slots of a runner last as long as its liveness, and never less than a job lock. */
  leaseTtl(heartbeatMs: number): number {
    return Math.max(this.lockMs, livenessMsOf(heartbeatMs)) * 2;
  }

  /** The task the calling runner holds; 403 for any other. */
  async held(ref: HeldTaskRef): Promise<{ lease: GatewayLease; task: Task }> {
    const { cluster_id: cluster, instance_id: instance, task_id: taskId } = ref;
    const lease = await this.worker.gatewayLeases.get(cluster, instance, taskId);
    if (!lease) throw fail('task_not_held', taskId);
    const task = await this.worker.taskStore.find(lease.project_id, taskId);
    if (!task) throw fail('held_task_not_found', taskId);
    return { lease, task };
  }

  /**
   * A task taken for a runner that never started it goes back to the queue for another runner,
   * no retry used; one no longer preparing (ended, or gone) has its token and slot freed and its
   * job leaves the queue.
   */
  async giveBack(cluster: string, instanceId: string, lease: GatewayLease): Promise<void> {
    const task = { project_id: lease.project_id, code_id: lease.code_id, id: lease.task_id };
    if (await this.worker.runnerTasks.giveBack(task, instanceId)) {
      await this.jobs.giveBack(cluster, lease);
      await this.redispatch(lease);
    } else {
      await this.worker.runnerTasks.release(task, lease.task_token ?? null);
      await this.jobs.complete(cluster, lease);
    }
    await this.worker.gatewayLeases.drop(cluster, instanceId, lease.task_id);
  }

  /**
   * The job of a task queued again may be gone: its lock lapsed, the stalled check put it back,
   * and another runner's poll, finding the task still held, dropped it. Job ids are task ids,
   * so a job that is still there is left as it is.
   */
  private async redispatch(lease: GatewayLease): Promise<void> {
    const queued = await this.worker.taskStore.find(lease.project_id, lease.task_id);
    if (queued?.status === 'queued') await this.worker.tasks.dispatch(lease.project_id, [queued]);
  }

  /** A run that is over: its token and slot freed, its job out of the queue, its lease dropped. */
  async release(cluster: string, instanceId: string, lease: GatewayLease, task: Task): Promise<void> {
    await this.worker.runnerTasks.release(task, lease.task_token ?? null);
    await this.jobs.complete(cluster, lease);
    await this.worker.gatewayLeases.drop(cluster, instanceId, task.id);
  }
}
