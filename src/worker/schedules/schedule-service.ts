import { newObjectId } from '../../core/ids.js';
import { fail } from '../../core/errors.js';
import type { ClusterAccess } from '../clusters/cluster-access.js';
import type { CodeStore } from '../codes/code-store.js';
import type { ProjectRef } from '../tasks/task-service.js';
import { checkRecurrence, firstRun } from './schedule-times.js';
import type { ScheduleStore } from './schedule-store.js';
import type { Recurrence, Schedule } from './schedule-types.js';
import { checkPayload } from '../tasks/task-admission.js';

/** One element of a schedule request, already checked against the API's schema; times in epoch ms. */
export interface ScheduleRequest extends Partial<Recurrence> {
  code_name: string;
  payload: string;
  name?: string;
  label?: string;
  priority?: number;
  timeout?: number;
  cluster?: string;
  task_delay?: number;
}

/** The schedules of the worker API, one method per thing a client does. */
export class ScheduleService {
  constructor(
    private readonly codes: CodeStore,
    private readonly store: ScheduleStore,
    private readonly clusterAccess: ClusterAccess,
    private readonly minIntervalSeconds: number,
  ) {}

  /**
   * Schedules every request or none: the clusters are checked first (those the project's owner
   * may use), then every request, before the first is written; at most `maxSchedules` active.
   */
  async create(
    project: ProjectRef,
    requests: ScheduleRequest[],
    maxSchedules: number,
    now = Date.now(),
  ): Promise<Schedule[]> {
    await this.clusterAccess.checkUsable(
      project.ownerId,
      requests.map((request) => request.cluster),
    );
    const projectId = project.id;
    const schedules = requests.map((request, i) =>
      this.scheduleOf(projectId, request, now, requests.length > 1 ? `schedules[${i}].` : ''),
    );
    await this.checkCodesExist(
      projectId,
      requests.map((request) => request.code_name),
    );
    await this.store.create(projectId, schedules, maxSchedules);
    return schedules;
  }

  list(projectId: string, page: number, perPage: number): Promise<Schedule[]> {
    return this.store.list(projectId, page, perPage);
  }

  get(projectId: string, scheduleId: string): Promise<Schedule> {
    return this.store.get(projectId, scheduleId);
  }

  /** Stops a schedule's future runs (tasks it already queued run on). */
  cancel(projectId: string, scheduleId: string): Promise<boolean> {
    return this.store.cancel(projectId, scheduleId);
  }

  private scheduleOf(projectId: string, request: ScheduleRequest, now: number, field: string): Schedule {
    checkPayload(request.payload, `${field}payload`);
    const recurrence: Recurrence = {
      start_at: request.start_at ?? now,
      run_every: request.run_every,
      cron: request.cron,
      timezone: request.timezone,
      run_times: request.run_times ?? (request.run_every === undefined && request.cron === undefined ? 1 : undefined),
      end_at: request.end_at,
    };
    checkRecurrence(recurrence, this.minIntervalSeconds, field);
    const next = firstRun(recurrence);
    if (next === undefined) throw fail('schedule_never_runs', field);
    return {
      ...recurrence,
      code_name: request.code_name,
      payload: request.payload,
      name: request.name,
      label: request.label,
      priority: request.priority,
      timeout: request.timeout,
      cluster: request.cluster,
      task_delay: request.task_delay,
      id: newObjectId(now),
      project_id: projectId,
      status: 'scheduled',
      created_at: now,
      updated_at: now,
      run_count: 0,
      error_count: 0,
      next_start: next,
    };
  }

  private async checkCodesExist(projectId: string, names: string[]): Promise<void> {
    for (const name of new Set(names)) {
      if (!(await this.codes.findByName(projectId, name))) throw fail('code_name_not_found', name);
    }
  }
}
