import { CronExpressionParser } from 'cron-parser';
import { fail } from '../../core/errors.js';
import type { Recurrence } from './schedule-types.js';

/** Parses a cron expression (5 or 6 fields) in a time zone; a bad one is the client's error. */
function cronFrom(expression: string, timezone: string | undefined, afterMs: number) {
  try {
    return CronExpressionParser.parse(expression, { currentDate: new Date(afterMs), tz: timezone ?? 'UTC' });
  } catch (error) {
    throw fail('schedule_bad_cron', (error as Error).message);
  }
}

/** The next cron time, or undefined when the expression has no more (a date that never comes, the end of time). */
function nextCronTime(cron: ReturnType<typeof cronFrom>): number | undefined {
  try {
    return cron.next().getTime();
  } catch {
    return undefined;
  }
}

function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw fail('schedule_unknown_timezone', timezone);
  }
}

/** The bounds of every schedule time: 1970 through 9999 (later dates overflow time arithmetic). */
export const TIME_BOUNDS = { min: 0, max: Date.UTC(9999, 11, 31, 23, 59, 59) } as const;
/** Longest run_every: ten years, in seconds. */
export const MAX_RUN_EVERY_SECONDS = 10 * 366 * 24 * 3600;
/** Cron runs checked for the floor when the seconds field has several values (test floors below 60 s). */
const CRON_SAMPLE = 1000;

function checkTime(value: number | undefined, field: string): void {
  if (value === undefined) return;
  if (!(value >= TIME_BOUNDS.min && value <= TIME_BOUNDS.max)) throw fail('schedule_time_out_of_range', field);
}

/**
 * The floor holds over the whole cycle, not just between the first two runs: with one seconds
 * value a cron line runs at most once a minute, so only a seconds field with several values
 * can come closer, and then every gap of a long sample is checked.
 */
function checkCronSpacing(recurrence: Recurrence & { cron: string }, minIntervalSeconds: number): void {
  const cron = cronFrom(recurrence.cron, recurrence.timezone, recurrence.start_at);
  const seconds = cron.fields.second.values.length;
  if (seconds <= 1 && minIntervalSeconds <= 60) return;
  const refusal = fail('schedule_cron_too_frequent', minIntervalSeconds);
  if (seconds > 1 && minIntervalSeconds >= 60) throw refusal;
  let previous: number | undefined;
  for (let i = 0; i < CRON_SAMPLE; i++) {
    const time = nextCronTime(cron);
    if (time === undefined) return;
    if (previous !== undefined && time - previous < minIntervalSeconds * 1000) throw refusal;
    previous = time;
  }
}

/** Refuses recurrences whose runs come closer together than the floor (60 s outside tests) or whose times are out of range. */
export function checkRecurrence(recurrence: Recurrence, minIntervalSeconds: number, field = ''): void {
  checkTime(recurrence.start_at, `${field}start_at`);
  checkTime(recurrence.end_at, `${field}end_at`);
  if (recurrence.run_every !== undefined && recurrence.run_every > MAX_RUN_EVERY_SECONDS)
    throw fail('schedule_run_every_too_long', field, MAX_RUN_EVERY_SECONDS);
  if (recurrence.run_every !== undefined && recurrence.cron !== undefined) throw fail('schedule_run_every_and_cron');
  if (recurrence.timezone !== undefined && recurrence.cron === undefined) throw fail('schedule_timezone_without_cron');
  if (recurrence.run_every !== undefined && recurrence.run_every < minIntervalSeconds) {
    throw fail('schedule_run_every_too_short', minIntervalSeconds);
  }
  if (recurrence.end_at !== undefined && recurrence.end_at < recurrence.start_at)
    throw fail('schedule_ends_before_start');
  if (recurrence.cron === undefined) return;
  if (recurrence.timezone !== undefined) checkTimezone(recurrence.timezone);
  checkCronSpacing({ ...recurrence, cron: recurrence.cron }, minIntervalSeconds);
}

/** The first run: start_at itself for an interval or a one-off, the first cron time from start_at on. */
export function firstRun(recurrence: Recurrence): number | undefined {
  const first =
    recurrence.cron === undefined
      ? recurrence.start_at
      : nextCronTime(cronFrom(recurrence.cron, recurrence.timezone, recurrence.start_at - 1));
  return first === undefined ? undefined : withinBounds(recurrence, first, 0);
}

/**
 * The run after the one due at `due`, claimed at `now`, when `runCount` runs have happened: the
 * first occurrence after now, so runs missed while nothing was running are not made up one by one.
 */
export function nextRun(recurrence: Recurrence, due: number, now: number, runCount: number): number | undefined {
  const after = Math.max(due, now);
  let next: number | undefined;
  if (recurrence.cron !== undefined) next = nextCronTime(cronFrom(recurrence.cron, recurrence.timezone, after));
  else if (recurrence.run_every !== undefined) {
    const every = recurrence.run_every * 1000;
    next = recurrence.start_at + (Math.floor((after - recurrence.start_at) / every) + 1) * every;
  }
  return next === undefined ? undefined : withinBounds(recurrence, next, runCount);
}

function withinBounds(recurrence: Recurrence, time: number, runCount: number): number | undefined {
  if (!(time <= TIME_BOUNDS.max)) return undefined;
  if (recurrence.run_times !== undefined && runCount >= recurrence.run_times) return undefined;
  if (recurrence.end_at !== undefined && time > recurrence.end_at) return undefined;
  return time;
}
