import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { FINAL_STATUSES, type TaskStatus } from '../src/worker/types.js';

// Task waits and runs range from milliseconds to the longest task timeout (an hour).
const TASK_SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600];

/** What a runner reports on /metrics: tasks by final status, slots busy/free, queue wait and run time. */
export class RunnerMetrics {
  private readonly startedTasks: Counter<'cluster'>;
  private readonly finishedTasks: Counter<'cluster' | 'status'>;
  private readonly queueWait: Histogram;
  private readonly runDuration: Histogram<'status'>;

  constructor(
    registry: Registry,
    private readonly cluster: string,
    slots: number,
    busySlots: () => number,
  ) {
    this.startedTasks = new Counter({
      name: 'ferrum_runner_tasks_started_total',
      help: 'Tasks this runner started running, by cluster',
      labelNames: ['cluster'] as const,
      registers: [registry],
    });
    this.finishedTasks = new Counter({
      name: 'ferrum_runner_tasks_total',
      help: 'Tasks this runner finished, by cluster and final status',
      labelNames: ['cluster', 'status'] as const,
      registers: [registry],
    });
    this.queueWait = new Histogram({
      name: 'ferrum_worker_task_wait_seconds',
      help: 'Time from when a task was due (queued plus its delay) to when it started running, in seconds',
      buckets: TASK_SECONDS_BUCKETS,
      registers: [registry],
    });
    this.runDuration = new Histogram({
      name: 'ferrum_worker_task_run_seconds',
      help: 'Time from when a task started running to when it finished, by final status, in seconds',
      labelNames: ['status'] as const,
      buckets: TASK_SECONDS_BUCKETS,
      registers: [registry],
    });
    this.startedTasks.inc({ cluster }, 0);
    for (const status of FINAL_STATUSES) this.finishedTasks.inc({ cluster, status }, 0);
    new Gauge({
      name: 'ferrum_runner_slots',
      help: 'Task slots of this runner, by state: busy (running a task) or free',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const busy = Math.min(busySlots(), slots);
        this.set({ state: 'busy' }, busy);
        this.set({ state: 'free' }, slots - busy);
      },
    });
  }

  /** A task started running; returns when, for finished(). */
  started(dueAt: number): number {
    const now = Date.now();
    this.startedTasks.inc({ cluster: this.cluster });
    this.queueWait.observe(Math.max(0, now - dueAt) / 1000);
    return now;
  }

  /** A task ended as `status`; `startedAt` is null when it never ran (it failed while preparing). */
  finished(status: TaskStatus, startedAt: number | null): void {
    this.finishedTasks.inc({ cluster: this.cluster, status });
    if (startedAt !== null) this.runDuration.observe({ status }, Math.max(0, Date.now() - startedAt) / 1000);
  }
}
