import type { Registry } from 'prom-client';
import type { Config } from '../core/config.js';
import type { RedisClient } from '../core/redis.js';
import { scheduleRunCounter } from './schedules/schedule-metrics.js';
import { Scheduler, type ScheduleRunOutcome } from './schedules/scheduler.js';
import { TaskSweeper } from './tasks/queues/task-sweeper.js';
import type { TaskLog } from './tasks/running/runner-tasks.js';
import type { WorkerServices } from './services.js';

/** The worker service's background work on controllers, each pass run by its leader loop. */
export interface WorkerUpkeep {
  /** Queues the runs of schedules as they fall due (the `scheduler` loop). */
  scheduler: Scheduler;
  /** Drops tasks past their retention, dispatches late ones, ends lost runs (the `task-sweeper` loop). */
  taskSweeper: TaskSweeper;
}

export interface WorkerUpkeepDeps {
  config: Config;
  redis: RedisClient;
  /** Where ferrum_worker_schedule_runs_total is registered. */
  registry: Registry;
  /** Pages through every project's id. */
  listProjectIds(after: string | undefined, count: number): Promise<string[]>;
  /** Where the sweeper logs the runs it ends. */
  log: TaskLog;
}

/** Built once by the composition root, over the worker's services. */
export function openWorkerUpkeep(worker: WorkerServices, deps: WorkerUpkeepDeps): WorkerUpkeep {
  const { config, log } = deps;
  return {
    scheduler: openScheduler(config, worker, scheduleRunCounter(deps.registry)),
    taskSweeper: new TaskSweeper(deps.redis, worker.keys, worker.taskStore, worker.tasks, {
      listProjectIds: deps.listProjectIds,
      dispatchGraceMs: config.worker.dispatchGraceMs,
      endIfLost: (task) => worker.runnerTasks.endIfLost(task, log),
    }),
  };
}

/** A scheduler over the worker's schedules and tasks; `observeRun` is told the outcome of every due run it handles. */
export function openScheduler(
  config: Config,
  worker: WorkerServices,
  observeRun?: (outcome: ScheduleRunOutcome) => void,
): Scheduler {
  return new Scheduler(worker.scheduleStore, worker.taskStore, worker.tasks, staleClaimMs(config), observeRun);
}

/** A claimed run left unqueued this long is taken over by the next pass. */
function staleClaimMs(config: Config): number {
  return Math.max(10 * config.schedules.tickMs, 2000);
}
