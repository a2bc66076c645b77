import { redisProbeOptions, startRedisProbe } from '../src/metrics/redis-probe.js';
import { autoscalerWork } from './loops/autoscaler.js';
import { cacheSweeperWork } from './loops/cache-sweeper.js';
import { historySamplerWork } from './loops/history-sampler.js';
import type { LeaderWork, LoopEnv, LoopRow, Stoppable } from './loop-runner.js';
import { metricsSamplerWork } from './loops/metrics-sampler.js';
import { projectJanitorWork } from './loops/project-janitor.js';
import { startPushDeliverer } from './loops/push-deliverer.js';

/**
 * Every background loop of a controller, in the order they start (controller/loop-runner.ts
 * starts them once the server listens, and stops them together). `lease`: 'leader' loops run on
 * one controller at a time, 'self' ones hold their own lease, 'none' run on every controller.
 */
export const BACKGROUND_LOOPS: readonly LoopRow[] = [
  { name: 'mq-sweeper', lease: 'self', intervalMs: (c) => c.mq.sweepIntervalMs, start: mqExpirySweeper },
  { name: 'cache-sweeper', lease: 'leader', intervalMs: (c) => c.cache.sweepIntervalMs, start: cacheSweeperWork },
  { name: 'history-sampler', lease: 'leader', intervalMs: (c) => c.historySampleMs, start: historySamplerWork },
  // Woken by messages posted to push queues, not by a timer.
  { name: 'mq-push', lease: 'self', intervalMs: () => null, start: startPushDeliverer },
  { name: 'scheduler', lease: 'leader', intervalMs: (c) => c.schedules.tickMs, start: schedulerWork },
  { name: 'task-sweeper', lease: 'leader', intervalMs: (c) => c.worker.taskSweepMs, start: taskSweeperWork },
  { name: 'project-janitor', lease: 'leader', intervalMs: (c) => c.projectJanitorMs, start: projectJanitorWork },
  { name: 'autoscaler', lease: 'leader', intervalMs: (c) => c.autoscaler.intervalMs, start: autoscalerWork },
  { name: 'metrics-sampler', lease: 'leader', intervalMs: (c) => c.metrics.sampleMs, start: metricsSamplerWork },
  { name: 'redis-probe', lease: 'none', intervalMs: (c) => c.metrics.redisPingMs, start: redisProbe },
];

/** The message queue's sweeper of expired messages in idle queues (built with the queue service). */
function mqExpirySweeper({ ctx }: LoopEnv): Stoppable {
  ctx.mq.startBackgroundWork();
  return { stop: () => ctx.mq.stopBackgroundWork() };
}

/** Queues the runs of schedules as they fall due. */
function schedulerWork({ ctx }: LoopEnv): LeaderWork {
  const { scheduler } = ctx.workerUpkeep;
  return { pass: (isStopping) => scheduler.pass(isStopping) };
}

/** Drops tasks past their retention, dispatches tasks whose BullMQ job was never added, ends runs no runner runs any more. */
function taskSweeperWork({ ctx }: LoopEnv): LeaderWork {
  const { taskSweeper } = ctx.workerUpkeep;
  return { pass: (isStopping) => taskSweeper.pass(isStopping) };
}

/** Redis's round trip and writability, for the ferrum_redis_* gauges, on every controller. */
function redisProbe({ ctx }: LoopEnv): Stoppable {
  return { stop: startRedisProbe(ctx.redis, ctx.metrics.registry, redisProbeOptions(ctx.config, ctx.keys)) };
}
