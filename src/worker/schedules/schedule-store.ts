import type { RedisClient } from '../../core/redis.js';
import { fail } from '../../core/errors.js';
import { dueMember, scripts, type ScheduleKeys } from './scripts.js';
import type { Schedule } from './schedule-types.js';

const NUMBER_FIELDS = new Set([
  'start_at',
  'run_every',
  'run_times',
  'end_at',
  'created_at',
  'updated_at',
  'priority',
  'timeout',
  'task_delay',
  'run_count',
  'error_count',
  'last_run_time',
  'next_start',
]);

function scheduleFromHash(hash: Record<string, string>): Schedule | null {
  if (!hash.id) return null;
  const schedule: Record<string, string | number> = {};
  for (const [field, value] of Object.entries(hash)) schedule[field] = NUMBER_FIELDS.has(field) ? Number(value) : value;
  return schedule as unknown as Schedule;
}

function hashOf(schedule: Schedule): string[] {
  const pairs: string[] = [];
  for (const [field, value] of Object.entries(schedule)) if (value !== undefined) pairs.push(field, String(value));
  return pairs;
}

/** A run the scheduler has to queue: the due set's member and time. */
export interface DueRun {
  member: string;
  at: number;
}

/** Schedule records, the due set the scheduler reads and the runs it has claimed. */
export class ScheduleStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: ScheduleKeys,
  ) {}

  /**
   * Writes new schedules of one project (each with its first next_start) in one script run;
   * 403 when the project would have more than `maxSchedules` active schedules.
   */
  async create(projectId: string, schedules: Schedule[], maxSchedules: number): Promise<void> {
    const keys = [this.keys.due(), this.keys.activeCount(projectId)];
    const args: string[] = [String(maxSchedules)];
    for (const schedule of schedules) {
      const fields = hashOf(schedule);
      keys.push(this.keys.schedule(projectId, schedule.id), this.keys.projectIndex(projectId));
      args.push(
        schedule.id,
        dueMember(projectId, schedule.id),
        String(schedule.created_at),
        String(schedule.next_start),
        String(fields.length),
        ...fields,
      );
    }
    if ((await scripts.createSchedules.run<number>(this.redis, keys, args)) < 0)
      throw fail('schedule_limit_reached', maxSchedules);
  }

  async find(projectId: string, scheduleId: string): Promise<Schedule | null> {
    return scheduleFromHash(await this.redis.hgetall(this.keys.schedule(projectId, scheduleId)));
  }

  async get(projectId: string, scheduleId: string): Promise<Schedule> {
    const schedule = await this.find(projectId, scheduleId);
    if (!schedule) throw fail('schedule_not_found');
    return schedule;
  }

  /** Newest first. */
  async list(projectId: string, page: number, perPage: number): Promise<Schedule[]> {
    const ids = await this.redis.zrevrange(this.keys.projectIndex(projectId), page * perPage, (page + 1) * perPage - 1);
    const schedules = await Promise.all(ids.map((id) => this.find(projectId, id)));
    return schedules.filter((schedule): schedule is Schedule => schedule !== null);
  }

  /**
   * Cancels a schedule with runs left; one that has ended (complete or cancelled) is left as it
   * is, as the original service did. Returns whether this call cancelled it.
   */
  async cancel(projectId: string, scheduleId: string, now = Date.now()): Promise<boolean> {
    const keys = [this.keys.schedule(projectId, scheduleId), this.keys.due(), this.keys.activeCount(projectId)];
    const previous = await scripts.cancelSchedule.run<string>(this.redis, keys, [
      dueMember(projectId, scheduleId),
      now,
    ]);
    if (previous === '') throw fail('schedule_not_found');
    return previous === 'scheduled';
  }

  async dueBy(now: number, limit: number): Promise<DueRun[]> {
    return this.runsIn(this.keys.due(), now, limit);
  }

  async claimedBefore(time: number, limit: number): Promise<DueRun[]> {
    return this.runsIn(this.keys.claimed(), time, limit);
  }

  /** Claims the run due at `run.at`; false when another scheduler claimed it or the schedule ended. */
  async claim(
    projectId: string,
    scheduleId: string,
    run: DueRun,
    now: number,
    nextStart: number | undefined,
    taskId: string,
  ): Promise<boolean> {
    const keys = [
      this.keys.due(),
      this.keys.claimed(),
      this.keys.schedule(projectId, scheduleId),
      this.keys.projectSuspended(projectId),
      this.keys.activeCount(projectId),
    ];
    const args = [run.member, run.at, now, nextStart === undefined ? '' : nextStart, `${run.member}/${taskId}`];
    return (await scripts.claimScheduleRun.run<number>(this.redis, keys, args)) === 1;
  }

  async retake(claim: DueRun, now: number): Promise<boolean> {
    return (
      (await scripts.retakeClaim.run<number>(this.redis, [this.keys.claimed()], [claim.member, claim.at, now])) === 1
    );
  }

  /** The claimed run is queued (or could never be): forget it. */
  async release(claimMember: string): Promise<void> {
    await this.redis.zrem(this.keys.claimed(), claimMember);
  }

  async recordError(projectId: string, scheduleId: string, msg: string, now = Date.now()): Promise<void> {
    const key = this.keys.schedule(projectId, scheduleId);
    await this.redis.multi().hincrby(key, 'error_count', 1).hset(key, 'msg', msg, 'updated_at', now).exec();
  }

  private async runsIn(key: string, upTo: number, limit: number): Promise<DueRun[]> {
    const flat = await this.redis.zrangebyscore(key, '-inf', upTo, 'WITHSCORES', 'LIMIT', 0, limit);
    const runs: DueRun[] = [];
    for (let i = 0; i < flat.length; i += 2) runs.push({ member: flat[i]!, at: Number(flat[i + 1]) });
    return runs;
  }
}
