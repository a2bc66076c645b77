import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../api/context.js';
import { LeaderLoop } from '../src/core/leader-loop.js';
import { openScheduleServices } from '../src/worker/schedules/schedule-services.js';
import { scheduleRunCounter } from '../src/worker/schedules/schedule-metrics.js';

export interface RunningScheduler {
  stop(): Promise<void>;
}

/** On the leader controller, queues the runs of schedules as they fall due, every FERRUM_SCHEDULER_TICK_MS. */
export function startScheduler(ctx: AppContext, log: FastifyBaseLogger): RunningScheduler {
  const { worker } = ctx;
  const { scheduler } = openScheduleServices(ctx, worker, scheduleRunCounter(ctx.metrics.registry));
  const loop = new LeaderLoop({
    redis: ctx.redis,
    keys: ctx.keys,
    name: 'scheduler',
    intervalMs: ctx.config.schedules.tickMs,
    log,
    leadership: ctx.metrics.leadership,
    work: (isStopping) => scheduler.pass(isStopping),
  });
  loop.start();
  return {
    async stop() {
      await loop.stop();
    },
  };
}
