import type { MqLogger } from '../../src/mq/dead-letters.js';
import { messageQueueOf, type MessageQueue } from '../../src/mq/service.js';
import type { AppContext } from '../context.js';

/** The process's message queue service built from the app context (shared by API versions and loops). */
export function messageQueueFor(ctx: AppContext, log: MqLogger): MessageQueue {
  return messageQueueOf({
    redis: ctx.redis,
    keys: ctx.keys,
    bus: ctx.bus,
    log,
    sweepIntervalMs: ctx.config.mq.sweepIntervalMs,
    registry: ctx.metrics.registry,
    pushStatusRetentionMs: ctx.config.mq.push.statusRetentionMs,
    maxPostMessages: ctx.config.mq.maxPostMessages,
  });
}
