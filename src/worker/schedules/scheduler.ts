import { isHttpError } from '../../core/errors.js';
import { newObjectId } from '../../core/ids.js';
import { parseMember } from './scripts.js';
import { nextRun } from './schedule-times.js';
import type { DueRun, ScheduleStore } from './schedule-store.js';
import type { Schedule } from './schedule-types.js';
import type { TaskStore } from '../tasks/records/task-store.js';
import type { TaskService } from '../tasks/task-service.js';

const BATCH = 100;

/**
 * What became of one due run: its task queued; skipped (the schedule was gone, another scheduler
 * had claimed the run, or its task was already queued); failed (the task was refused).
 */
export type ScheduleRunOutcome = 'queued' | 'skipped' | 'failed';

/**
 * One scheduler pass queues every due run. Each run is claimed atomically first (see
 * claim-schedule-run.lua), so it is queued once even when two schedulers overlap; a claimed run
 * whose task never got queued (its scheduler died) is taken over after `staleClaimMs`.
 */
export class Scheduler {
  constructor(
    private readonly store: ScheduleStore,
    private readonly tasks: TaskStore,
    private readonly queueing: TaskService,
    private readonly staleClaimMs: number,
    private readonly observe: (outcome: ScheduleRunOutcome) => void = () => {},
  ) {}

  async pass(isStopping: () => boolean = () => false): Promise<void> {
    await this.recoverClaims(isStopping);
    for (;;) {
      const due = await this.store.dueBy(Date.now(), BATCH);
      for (const run of due) {
        if (isStopping()) return;
        await this.runDue(run);
      }
      if (due.length < BATCH) return;
    }
  }

  private async runDue(run: DueRun): Promise<void> {
    const [projectId, scheduleId] = parseMember(run.member) as [string, string];
    const schedule = await this.store.find(projectId, scheduleId);
    if (!schedule) return this.observe('skipped');
    const now = Date.now();
    const taskId = newObjectId(now);
    const next = nextRun(schedule, run.at, now, schedule.run_count + 1);
    if (!(await this.store.claim(projectId, scheduleId, run, now, next, taskId))) return this.observe('skipped');
    await this.queueRun(schedule, taskId, `${run.member}/${taskId}`);
  }

  private async recoverClaims(isStopping: () => boolean): Promise<void> {
    const now = Date.now();
    for (const claim of await this.store.claimedBefore(now - this.staleClaimMs, BATCH)) {
      if (isStopping()) return;
      if (!(await this.store.retake(claim, now))) continue;
      const [projectId, scheduleId, taskId] = parseMember(claim.member) as [string, string, string];
      const schedule = await this.store.find(projectId, scheduleId);
      if (schedule) await this.queueRun(schedule, taskId, claim.member);
      else {
        await this.store.release(claim.member);
        this.observe('skipped');
      }
    }
  }

  /**
   * Queues the run's task unless it already exists (a retaken claim whose task was queued just before
   * its scheduler died). A refusal (say, the code package was deleted) counts as the schedule's error;
   * any other failure keeps the claim for a later pass.
   */
  private async queueRun(schedule: Schedule, taskId: string, claimMember: string): Promise<void> {
    let outcome: ScheduleRunOutcome = 'skipped';
    try {
      if (!(await this.tasks.find(schedule.project_id, taskId))) {
        await this.queueing.queue(schedule.project_id, [taskRequestOf(schedule)], {
          schedule: { id: schedule.id, taskId },
        });
        outcome = 'queued';
      }
    } catch (error) {
      if (!isHttpError(error)) throw error;
      await this.store.recordError(schedule.project_id, schedule.id, error.message);
      outcome = 'failed';
    }
    await this.store.release(claimMember);
    this.observe(outcome);
  }
}

function taskRequestOf(schedule: Schedule) {
  return {
    code_name: schedule.code_name,
    payload: schedule.payload,
    priority: schedule.priority,
    cluster: schedule.cluster,
    timeout: schedule.timeout,
    delay: schedule.task_delay,
    label: schedule.label,
  };
}
