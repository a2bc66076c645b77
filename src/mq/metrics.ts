import { Counter, Gauge, type Registry } from 'prom-client';
import type { WakeHub } from './long-poll.js';

/** Message queue counters exported on /metrics. */
export interface MqMetrics {
  posted: Counter;
  reserved: Counter;
  deleted: Counter;
  deadLettered: Counter;
}

const created = new WeakMap<Registry, MqMetrics>();

/** Registers (once per registry) the message queue metrics, and a gauge of waiting long-polls. */
export function mqMetrics(registry: Registry, hub: WakeHub): MqMetrics {
  const existing = created.get(registry);
  if (existing) return existing;
  const counter = (name: string, help: string) => new Counter({ name: `ferrum_mq_${name}_total`, help, registers: [registry] });
  const metrics: MqMetrics = {
    posted: counter('messages_posted', 'Messages put on queues by posts and webhooks'),
    reserved: counter('messages_reserved', 'Messages handed out by reserve'),
    deleted: counter('messages_deleted', 'Messages deleted one by one or in batches (not counting clears)'),
    deadLettered: counter('messages_dead_lettered', 'Messages moved to a dead letter queue by reserve'),
  };
  new Gauge({
    name: 'ferrum_mq_long_poll_waiters',
    help: 'Reserve requests of this process waiting for messages',
    registers: [registry],
    collect() {
      this.set(hub.waiterCount);
    },
  });
  created.set(registry, metrics);
  return metrics;
}
