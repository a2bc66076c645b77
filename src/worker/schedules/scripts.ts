import { loadLua } from '../../core/lua.js';
import { projectSchedulesCountKey } from '../../auth/project-counters.js';
import type { KeySpace } from '../../core/redis.js';

/** The schedule scripts, from lua/. */
const scheduleScript = (name: string) => loadLua(new URL('./lua/', import.meta.url).href, name);

export const scripts = {
  createSchedules: scheduleScript('create-schedules'),
  claimScheduleRun: scheduleScript('claim-schedule-run'),
  cancelSchedule: scheduleScript('cancel-schedule'),
  retakeClaim: scheduleScript('retake-claim'),
};

/**
 * Keys of the scheduler. All share the hash tag {ws} because the claim script moves a schedule
 * between the due set and its record in one step, whatever the project.
 */
export class ScheduleKeys {
  constructor(private readonly keys: KeySpace) {}

  schedule(projectId: string, scheduleId: string) {
    return this.keys.of('{ws}', 'schedule', projectId, scheduleId);
  }
  /** A project's schedules, scored by created_at. */
  projectIndex(projectId: string) {
    return this.keys.of('{ws}', 'schedules', projectId);
  }
  /** Exists while the project (or its owner) is suspended: its runs are skipped (claim-schedule-run.lua). */
  projectSuspended(projectId: string) {
    return this.keys.of('{ws}', 'suspended', projectId);
  }

  /** How many of a project's schedules are active (shown as the project's schedules_count). */
  activeCount(projectId: string) {
    return projectSchedulesCountKey(this.keys, projectId);
  }
  /** "<project>/<schedule>" scored by next_start: what the scheduler has to queue. */
  due() {
    return this.keys.of('{ws}', 'due');
  }
  /** "<project>/<schedule>/<task id>" scored by claim time: runs claimed but not yet queued. */
  claimed() {
    return this.keys.of('{ws}', 'claimed');
  }
}

export function dueMember(projectId: string, scheduleId: string): string {
  return `${projectId}/${scheduleId}`;
}

export function parseMember(member: string): string[] {
  return member.split('/');
}
