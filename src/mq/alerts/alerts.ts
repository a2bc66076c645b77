import { fail } from '../../core/errors.js';
import { newObjectId } from '../../core/ids.js';
import { toRfc3339 } from '../../core/time.js';
import type { QueueRef } from '../scripts.js';
import type { Alert, AlertSpec } from '../types.js';

export const MAX_ALERTS_PER_QUEUE = 5;

/** An alert fired by a size change (see lua/includes/evaluate-alerts.lua). */
export interface FiredAlert {
  id: string;
  type: Alert['type'];
  direction: Alert['direction'];
  trigger: number;
  /** The queue the alert message goes to. */
  queue: string;
  size: number;
  atMs: number;
}

function sameAlert(a: AlertSpec, b: AlertSpec): boolean {
  return a.type === b.type && a.trigger === b.trigger && a.direction === b.direction && a.queue === b.queue;
}

/**
 * The stored list for `specs` on queue `queueName`: at most five, no two alike (same type,
 * trigger, direction and target), none targeting the queue itself. An alert already stored
 * keeps its id (and so its snooze state); a new one gets a fresh id.
 */
export function withAlertIds(queueName: string, current: Alert[] | undefined, specs: AlertSpec[]): Alert[] {
  if (specs.length > MAX_ALERTS_PER_QUEUE) throw fail('mq_too_many_alerts', MAX_ALERTS_PER_QUEUE);
  return specs.map((spec, index) => {
    if (spec.queue === queueName) throw fail('mq_alert_targets_itself', index);
    if (specs.slice(0, index).some((earlier) => sameAlert(earlier, spec))) {
      throw fail('mq_alert_twice', index);
    }
    const existing = current?.find((alert) => sameAlert(alert, spec));
    return { ...spec, id: existing?.id ?? newObjectId() };
  });
}

/** Alerts after adding `specs` to `current` (an alert like one already there is a duplicate). */
export function addAlerts(queueName: string, current: Alert[] | undefined, specs: AlertSpec[]): Alert[] {
  for (const [index, spec] of specs.entries()) {
    if (current?.some((alert) => sameAlert(alert, spec))) throw fail('mq_alert_already_there', index);
  }
  return withAlertIds(queueName, current, [...(current ?? []), ...specs]);
}

/** Alerts after removing those with the given ids (each must exist). */
export function removeAlerts(current: Alert[] | undefined, ids: string[]): Alert[] {
  for (const id of ids) {
    if (!current?.some((alert) => alert.id === id)) throw fail('mq_alert_not_found', id);
  }
  return (current ?? []).filter((alert) => !ids.includes(alert.id));
}

/** Fired alerts from a script's JSON reply ('[]' or absent when none). */
export function parseFiredAlerts(reply: unknown): FiredAlert[] {
  if (typeof reply !== 'string' || reply === '[]' || reply === '{}') return [];
  const rows = JSON.parse(reply) as Array<[string, Alert['type'], Alert['direction'], number, string, number, number]>;
  return rows.map(([id, type, direction, trigger, queue, size, atMs]) => ({
    id,
    type,
    direction,
    trigger,
    queue,
    size,
    atMs,
  }));
}

/** The body of the message an alert posts to its target queue. */
export function alertMessageBody(source: QueueRef, fired: FiredAlert): string {
  return JSON.stringify({
    source_queue: source.name,
    queue_size: fired.size,
    alert_id: fired.id,
    alert_type: fired.type,
    alert_direction: fired.direction,
    alert_trigger: fired.trigger,
    created_at: toRfc3339(fired.atMs),
  });
}
