import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { TaskStatus } from '../src/worker/types.js';

/** What a runner reports on /metrics: tasks by final status, slots, and queue-to-start time. */
export class RunnerMetrics {
  private readonly finishedTasks: Counter<'status'>;
  private readonly startDelay: Histogram;

  constructor(registry: Registry, slots: number, busySlots: () => number) {
    this.finishedTasks = new Counter({
      name: 'ferrum_runner_tasks_total',
      help: 'Tasks this runner finished, by final status',
      labelNames: ['status'] as const,
      registers: [registry],
    });
    this.startDelay = new Histogram({
      name: 'ferrum_runner_task_start_seconds',
      help: 'Time from when a task was due (queued plus its delay) to when it started running',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    });
    new Gauge({ name: 'ferrum_runner_slots', help: 'Tasks this runner may run at once', registers: [registry] }).set(slots);
    new Gauge({
      name: 'ferrum_runner_busy_slots',
      help: 'Tasks this runner is running now',
      registers: [registry],
      collect() {
        this.set(busySlots());
      },
    });
  }

  finished(status: TaskStatus): void {
    this.finishedTasks.inc({ status });
  }

  started(dueAt: number): void {
    this.startDelay.observe(Math.max(0, Date.now() - dueAt) / 1000);
  }
}
