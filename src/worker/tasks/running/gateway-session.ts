import { fail } from '../../../core/errors.js';
import { advertisedFeatures } from '../../../core/features/feature-registry.js';
import type { FeatureStore } from '../../../core/features/feature-store.js';
import { livenessMsOf, type RunnerInstance } from '../../clusters/runners/runner-registry.js';
import type { WorkerServices } from '../../services.js';
import type { Task } from '../../types.js';
import type { TaskLog } from './runner-tasks.js';
import type { GatewayJobs, LockedJob } from './gateway-jobs.js';
import type { GatewayLease } from './gateway-leases.js';
import type { HeldTasks } from './held-tasks.js';

/** Which runner of which cluster calls. */
export interface GatewayRunner {
  cluster: string;
  instanceId: string;
}

/** A runner's long-poll for its next task. */
export interface NextTaskAsk extends GatewayRunner {
  heartbeatMs: number;
  waitMs: number;
  /** Aborts when the runner goes away before it has its answer. */
  gone: AbortSignal;
  /** Whether the runner's token still works, checked again before a task is handed out. */
  stillGranted(): Promise<boolean>;
}

/** What a runner's heartbeat says of it. */
export interface RunnerBeat extends GatewayRunner {
  hostname: string;
  version: string;
  slots: number;
  busy: number;
  heartbeatMs: number;
  createdAt: number;
  /** The tasks it is running. */
  running: string[];
  /** The header naming the storage flags it knows. */
  featuresHeader: string | string[] | undefined;
}

/** The heartbeat's answer: whether the runner should stop, and which of its tasks to cancel. */
export interface BeatAnswer {
  retire: boolean;
  cancelled: string[];
}

interface SessionSettings {
  lockMs: number;
  gateRetryMs: number;
}

/**
 * What the runner API does for a gateway runner, one call per request: its long-poll takes a
 * BullMQ job and its task for it, its heartbeat keeps its tasks' leases, slots and job locks.
 */
export class GatewaySession {
  constructor(
    private readonly worker: WorkerServices,
    private readonly held: HeldTasks,
    private readonly jobs: GatewayJobs,
    private readonly features: FeatureStore,
    private readonly settings: SessionSettings,
  ) {}

  /** The next task taken for the runner and leased to it; null when none came in time or it went away. */
  async next(ask: NextTaskAsk, log: TaskLog): Promise<Task | null> {
    const { cluster, instanceId, gone } = ask;
    if (!(await this.worker.runners.isAlive(cluster, instanceId))) throw fail('instance_not_registered', instanceId);
    const deadline = Date.now() + ask.waitMs;
    for (;;) {
      const remaining = deadline - Date.now();
      const taken = remaining > 0 ? await this.jobs.next(cluster, remaining, gone) : null;
      if (!taken) return null;
      if (gone.aborted) {
        await this.jobs.requeue(taken);
        return null;
      }
      // A token revoked while this poll waited takes nothing: the job goes back for another runner.
      if (!(await ask.stillGranted())) {
        await this.jobs.requeue(taken);
        throw fail('runner_token_invalid');
      }
      const task = await this.take(ask, taken, log);
      if (task || gone.aborted) return task;
    }
  }

  /** The job's task taken and leased to the runner; null when the job is dealt with and the poll goes on. */
  private async take(ask: NextTaskAsk, taken: LockedJob, log: TaskLog): Promise<Task | null> {
    const { cluster, instanceId, heartbeatMs } = ask;
    const { project_id: projectId, task_id: taskId } = taken.job.data;
    const task = await this.worker.runnerTasks.take(projectId, taskId, instanceId, livenessMsOf(heartbeatMs), log);
    // Every slot of its code package is held: back to the queue, not counted as an attempt.
    if (task === 'gated') return this.jobs.requeue(taken, this.settings.gateRetryMs).then(() => null);
    if (!task) return this.jobs.discard(taken).then(() => null);
    const lease: GatewayLease = {
      project_id: projectId,
      task_id: taskId,
      code_id: task.code_id,
      job_id: taken.job.id ?? taskId,
      lock: taken.lock,
      taken_at: Date.now(),
    };
    await this.worker.gatewayLeases.put(cluster, instanceId, lease, this.held.leaseTtl(heartbeatMs));
    if (!ask.gone.aborted) return task;
    await this.held.giveBack(cluster, instanceId, lease);
    return null;
  }

  /** Registers the runner's beat and keeps what it runs; gives back what it never got. */
  async heartbeat(beat: RunnerBeat): Promise<BeatAnswer> {
    const { cluster, instanceId } = beat;
    const now = Date.now();
    const liveness = livenessMsOf(beat.heartbeatMs);
    await this.register(beat, now, liveness);
    const leases = await this.worker.gatewayLeases.all(cluster, instanceId);
    await this.worker.gatewayLeases.touch(cluster, instanceId, this.held.leaseTtl(beat.heartbeatMs));
    const kept = leases.filter((lease) => beat.running.includes(lease.task_id));
    const lock = Math.max(this.settings.lockMs, liveness);
    await this.keep(cluster, kept, liveness, lock);
    // A task taken for this runner whose answer it never got (its long-poll dropped) is given back.
    for (const lease of leases) {
      if (!beat.running.includes(lease.task_id) && now - lease.taken_at > lock)
        await this.held.giveBack(cluster, instanceId, lease);
    }
    const cancelled = await this.noLongerItsOwn(instanceId, kept);
    const type = await this.worker.instances.typeOf(cluster, instanceId);
    return { retire: type === 'KILL' || type === 'TERMINATE', cancelled };
  }

  private async register(beat: RunnerBeat, now: number, liveness: number): Promise<void> {
    const instance: RunnerInstance = {
      instance_id: beat.instanceId,
      cluster: beat.cluster,
      hostname: beat.hostname,
      slots: beat.slots,
      busy: beat.busy,
      version: beat.version,
      created_at: beat.createdAt,
      updated_at: now,
      expires_at: 0,
    };
    await this.worker.runners.heartbeat(instance, liveness);
    // Its storage flags, which it cannot write itself (none named: a release before flags).
    await this.features.advertise({
      id: `${beat.cluster}/${beat.instanceId}`,
      kind: 'gateway-runner',
      version: beat.version,
      features: advertisedFeatures(beat.featuresHeader),
      expires_at: now + liveness,
    });
  }

  /** The slots and job locks of the tasks the runner still runs last another beat. */
  private async keep(cluster: string, kept: GatewayLease[], liveness: number, lockMs: number): Promise<void> {
    await this.worker.gate.renew(
      kept.map((lease) => ({ projectId: lease.project_id, codeId: lease.code_id, taskId: lease.task_id })),
      liveness,
    );
    await Promise.all(kept.map((lease) => this.jobs.extendLock(cluster, lease, lockMs).catch(() => {})));
  }

  /** The runner's tasks that ended, went to another runner or are gone: it should stop running them. */
  private async noLongerItsOwn(instanceId: string, kept: GatewayLease[]): Promise<string[]> {
    const states = await this.worker.taskStore.runStates(kept);
    return kept
      .filter((_, index) => {
        const state = states[index];
        return !state || !['preparing', 'running'].includes(state.status) || state.runner !== instanceId;
      })
      .map((lease) => lease.task_id);
  }

  /** The runner leaves: its registration and its storage flags' advert go. */
  async deregister(runner: GatewayRunner): Promise<void> {
    await this.worker.runners.deregister(runner.cluster, runner.instanceId);
    await this.features.withdraw(`${runner.cluster}/${runner.instanceId}`);
  }
}
