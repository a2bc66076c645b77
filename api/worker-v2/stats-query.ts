import { fail } from '../../src/core/errors.js';
import type { StatsRange } from '../../src/worker/tasks/records/task-stats.js';
import { TASK_STATUSES } from '../../src/worker/types.js';

const DAY_MS = 24 * 3600 * 1000;

export const statsQuery = {
  type: 'object',
  properties: {
    start_date: { type: 'integer', minimum: 0 },
    end_date: { type: 'integer', minimum: 0 },
  },
} as const;

export interface StatsQuery {
  start_date?: number;
  end_date?: number;
}

export const statsSchema = {
  type: 'object',
  properties: Object.fromEntries(TASK_STATUSES.map((status) => [status, { type: 'number' }])),
} as const;

/** Epoch seconds → ms bounds on the last change; neither given: the last 24 hours. */
export function statsRangeOf(query: StatsQuery, now: number): StatsRange {
  if (query.start_date === undefined && query.end_date === undefined) return { from: now - DAY_MS, to: now };
  const range = { from: secondsToMs(query.start_date), to: secondsToMs(query.end_date, 999) };
  if (range.from !== undefined && range.to !== undefined && range.from > range.to)
    throw fail('code_stats_dates_reversed');
  return range;
}

/** `extraMs` makes an end bound take in the whole of its last second. */
function secondsToMs(seconds: number | undefined, extraMs = 0): number | undefined {
  return seconds === undefined ? undefined : seconds * 1000 + extraMs;
}
