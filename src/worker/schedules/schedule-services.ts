import type { Config } from '../../core/config.js';
import type { ScheduleStore } from './schedule-store.js';
import { Scheduler, type ScheduleRunOutcome } from './scheduler.js';
import type { ScheduleService } from './schedule-service.js';
import type { WorkerServices } from '../services.js';

export interface ScheduleServices {
  store: ScheduleStore;
  schedules: ScheduleService;
  scheduler: Scheduler;
}

/** A claimed run left unqueued this long is taken over by the next pass. */
function staleClaimMs(config: Config): number {
  return Math.max(10 * config.schedules.tickMs, 2000);
}

/** The worker's schedule store and service, and a scheduler over them; `observeRun`: told the outcome of every due run the scheduler handles (metrics). */
export function openScheduleServices(
  deps: { config: Config },
  worker: WorkerServices,
  observeRun?: (outcome: ScheduleRunOutcome) => void,
): ScheduleServices {
  const store = worker.scheduleStore;
  return {
    store,
    schedules: worker.schedules,
    scheduler: new Scheduler(store, worker.taskStore, worker.tasks, staleClaimMs(deps.config), observeRun),
  };
}
