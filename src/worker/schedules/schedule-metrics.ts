import { Counter, type Registry } from 'prom-client';
import { perRegistry } from '../../metrics/per-registry.js';
import type { ScheduleRunOutcome } from './scheduler.js';

const SCHEDULE_RUN_OUTCOMES: readonly ScheduleRunOutcome[] = ['queued', 'skipped', 'failed'];

/** Counts every due schedule run the scheduler handles, by outcome (ferrum_worker_schedule_runs_total). */
export function scheduleRunCounter(registry: Registry): (outcome: ScheduleRunOutcome) => void {
  const create = () =>
    new Counter({
      name: 'ferrum_worker_schedule_runs_total',
      help: 'Due schedule runs by outcome: queued (task queued), skipped (schedule gone, claimed elsewhere or already queued), failed (task refused)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    });
  const counter = perRegistry(registry, 'schedule-runs', create);
  for (const outcome of SCHEDULE_RUN_OUTCOMES) counter.inc({ outcome }, 0);
  return (outcome) => counter.inc({ outcome });
}
