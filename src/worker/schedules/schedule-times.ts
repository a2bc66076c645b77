import { CronExpressionParser } from 'cron-parser';
import { badRequest } from '../../core/errors.js';
import type { Recurrence } from './schedule-types.js';

/** Parses a cron expression (5 or 6 fields) in a time zone; a bad one is the client's error. */
function cronFrom(expression: string, timezone: string | undefined, afterMs: number) {
  try {
    return CronExpressionParser.parse(expression, { currentDate: new Date(afterMs), tz: timezone ?? 'UTC' });
  } catch (error) {
    throw badRequest(`cron is not a valid cron expression: ${(error as Error).message}`);
  }
}

function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw badRequest(`timezone is not a known time zone: ${timezone}`);
  }
}

/** Refuses recurrences whose runs come closer together than the floor (60 s outside tests). */
export function checkRecurrence(recurrence: Recurrence, minIntervalSeconds: number): void {
  if (recurrence.run_every !== undefined && recurrence.cron !== undefined)
    throw badRequest('Give either run_every or cron, not both');
  if (recurrence.timezone !== undefined && recurrence.cron === undefined)
    throw badRequest('timezone applies only to cron');
  if (recurrence.run_every !== undefined && recurrence.run_every < minIntervalSeconds) {
    throw badRequest(`run_every must be at least ${minIntervalSeconds} seconds`);
  }
  if (recurrence.end_at !== undefined && recurrence.end_at < recurrence.start_at)
    throw badRequest('end_at must not be before start_at');
  if (recurrence.cron === undefined) return;
  if (recurrence.timezone !== undefined) checkTimezone(recurrence.timezone);
  const cron = cronFrom(recurrence.cron, recurrence.timezone, recurrence.start_at);
  const first = cron.next().getTime();
  const second = cron.next().getTime();
  if (second - first < minIntervalSeconds * 1000)
    throw badRequest(`cron runs must be at least ${minIntervalSeconds} seconds apart`);
}

/** The first run: start_at itself for an interval or a one-off, the first cron time from start_at on. */
export function firstRun(recurrence: Recurrence): number | undefined {
  const first =
    recurrence.cron === undefined
      ? recurrence.start_at
      : cronFrom(recurrence.cron, recurrence.timezone, recurrence.start_at - 1)
          .next()
          .getTime();
  return withinBounds(recurrence, first, 0);
}

/**
 * The run after the one due at `due`, claimed at `now`, when `runCount` runs have happened: the
 * first occurrence after now, so runs missed while nothing was running are not made up one by one.
 */
export function nextRun(recurrence: Recurrence, due: number, now: number, runCount: number): number | undefined {
  const after = Math.max(due, now);
  let next: number | undefined;
  if (recurrence.cron !== undefined) next = cronFrom(recurrence.cron, recurrence.timezone, after).next().getTime();
  else if (recurrence.run_every !== undefined) {
    const every = recurrence.run_every * 1000;
    next = recurrence.start_at + (Math.floor((after - recurrence.start_at) / every) + 1) * every;
  }
  return next === undefined ? undefined : withinBounds(recurrence, next, runCount);
}

function withinBounds(recurrence: Recurrence, time: number, runCount: number): number | undefined {
  if (recurrence.run_times !== undefined && runCount >= recurrence.run_times) return undefined;
  if (recurrence.end_at !== undefined && time > recurrence.end_at) return undefined;
  return time;
}
