import { Counter, Gauge, type Registry } from 'prom-client';
import { perRegistry } from '../metrics/per-registry.js';
import type { WakeHub } from './messages/wake-hub.js';
import type { ReserveResult } from './types.js';
import type { PushState } from './push/status.js';

/** What one delivery try (or a lapsed 202) left a subscriber's status as, named for operators. */
const PUSH_OUTCOMES: Record<PushState, string | null> = {
  deleted: 'delivered',
  reserved: 'accepted',
  retrying: 'retrying',
  error: 'failed',
  queued: null,
};

/** What passes a message on, spending one hop of its budget (messages/hop-budget.ts). */
export const HOP_SPENDERS = ['push', 'alert', 'error_report'] as const;
export type HopSpender = (typeof HOP_SPENDERS)[number];

/** Message queue counters exported on /metrics. */
export class MqMetrics {
  readonly posted: Counter;
  readonly reserved: Counter;
  readonly deleted: Counter;
  readonly expired: Counter;
  readonly deadLettered: Counter;
  readonly pushDeliveries: Counter<'outcome'>;
  readonly hopBudgetExhausted: Counter<'by'>;

  constructor(registry: Registry, hub: WakeHub) {
    const counter = (name: string, help: string) =>
      new Counter({ name: `ferrum_mq_${name}_total`, help, registers: [registry] });
    this.posted = counter(
      'messages_posted',
      'Messages put on queues by posts, webhooks, alerts and push error reports',
    );
    this.reserved = counter('messages_reserved', 'Messages handed out by reserve (clients and push delivery)');
    this.deleted = counter('messages_deleted', 'Messages deleted one by one or in batches (not counting clears)');
    this.expired = counter(
      'messages_expired',
      'Messages dropped because their expiration passed (by reserve, peek, queue info and the expiry sweeper)',
    );
    this.deadLettered = counter('messages_dead_lettered', 'Messages moved to a dead letter queue by reserve');
    this.pushDeliveries = new Counter({
      name: 'ferrum_mq_push_deliveries_total',
      help: 'Push delivery tries by outcome: delivered (200), accepted (202, awaiting acknowledgement), retrying (failed, will retry), failed (retries used up; reported to the error queue when the queue has one)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    });
    for (const outcome of Object.values(PUSH_OUTCOMES)) if (outcome) this.pushDeliveries.inc({ outcome }, 0);
    this.hopBudgetExhausted = new Counter({
      name: 'ferrum_mq_hop_budget_exhausted_total',
      help: 'Messages not passed on because their hop budget was spent (a loop through push delivery, alerts or error reports), by what would have passed them on: push, alert, error_report',
      labelNames: ['by'] as const,
      registers: [registry],
    });
    for (const by of HOP_SPENDERS) this.hopBudgetExhausted.inc({ by }, 0);
    new Gauge({
      name: 'ferrum_mq_long_poll_waiters',
      help: 'Reserve requests of this process waiting for messages',
      registers: [registry],
      collect() {
        this.set(hub.waiterCount);
      },
    });
  }

  /** Counts what one reserve did: messages handed out, dead-lettered and dropped as expired. */
  countReserve(result: ReserveResult): void {
    this.reserved.inc(result.count);
    this.deadLettered.inc(result.movedToDeadLetter);
    this.expired.inc(result.expired);
    const deleted = result.deleteOutcomes.filter((outcome) => outcome === 0).length;
    if (deleted > 0) this.deleted.inc(deleted);
  }

  /** Counts the subscriber statuses a delivery round ended with. */
  countPushStatus(status: PushState): void {
    const outcome = PUSH_OUTCOMES[status];
    if (outcome) this.pushDeliveries.inc({ outcome });
  }
}

/** The message queue metrics of a registry, registered on first use. */
export function mqMetrics(registry: Registry, hub: WakeHub): MqMetrics {
  return perRegistry(registry, 'mq', () => new MqMetrics(registry, hub));
}
