import type { AppContext } from '../../api/context.js';
import { OutboundGuard } from '../../src/core/outbound-guard.js';
import { fail } from '../../src/core/errors.js';
import { PushDeliverer } from '../../src/mq/push/deliverer.js';
import type { QueueTask } from '../../src/mq/push/internal-delivery.js';
import type { LoopEnv, Stoppable } from '../loop-runner.js';

/** Starts push delivery (it holds its own lease) unless FERRUM_MQ_PUSH_CONCURRENCY is 0. */
export function startPushDeliverer({ ctx, log, publicUrl }: LoopEnv): Stoppable {
  const config = ctx.config.mq.push;
  if (config.concurrency === 0) return { stop() {} };
  const guard = new OutboundGuard(ctx.config.outboundAllow);
  const deliverer = new PushDeliverer({
    redis: ctx.redis,
    keys: ctx.keys,
    bus: ctx.bus,
    mq: ctx.mq,
    log,
    config,
    publicUrl,
    guard,
    queueTask: taskQueuerFor(ctx),
    budget: ctx.budget,
    leadership: ctx.metrics.leadership,
  });
  deliverer.start();
  return deliverer;
}

/** `ironworker:///<code>` subscribers queue tasks as the tasks API would, on the default cluster. */
export function taskQueuerFor(ctx: AppContext): QueueTask {
  return async (projectId, codeName, payload) => {
    if (await ctx.lifecycle.isSuspended(projectId)) throw fail('project_suspended_no_tasks');
    await ctx.worker.tasks.queue(projectId, [{ code_name: codeName, payload }]);
  };
}
