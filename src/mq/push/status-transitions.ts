import type { PushSettings } from '../types.js';
import type { DeliveryOutcome } from './http-delivery.js';
import type { SubscriberStatus } from './status.js';

/** What a delivery round knows about its message. */
export interface RoundContext {
  push: PushSettings;
  now: number;
  reservationId: string;
  /** How long a 202 answer keeps the message reserved for that subscriber (the queue's message_timeout). */
  acknowledgeWithinMs: number;
}

/** A subscriber waits for delivery when never tried, or retrying and the retry is due. */
export function isDue(status: SubscriberStatus, now: number): boolean {
  return status.status === 'queued' || (status.status === 'retrying' && (status.due_at ?? 0) <= now);
}

/** A 202 whose acknowledgement did not come in time. */
export function isLapsedReservation(status: SubscriberStatus, now: number): boolean {
  return status.status === 'reserved' && (status.due_at ?? 0) <= now;
}

/** Counts a failed try: retrying after retries_delay while retries remain, else error. */
export function failed(status: SubscriberStatus, context: RoundContext): SubscriberStatus {
  const next: SubscriberStatus = { ...status };
  delete next.reservation_id;
  if (status.retries_remaining > 0) {
    next.status = 'retrying';
    next.retries_remaining = status.retries_remaining - 1;
    next.due_at = context.now + context.push.retries_delay * 1000;
  } else {
    next.status = 'error';
    delete next.due_at;
  }
  return next;
}

/** The status after one try answered with `outcome`. */
export function afterTry(status: SubscriberStatus, outcome: DeliveryOutcome, context: RoundContext): SubscriberStatus {
  const tried: SubscriberStatus = {
    ...status,
    tries: status.tries + 1,
    status_code: outcome.statusCode,
    last_try_at: context.now,
    error: outcome.error,
  };
  if (outcome.statusCode === 200) {
    delete tried.due_at;
    delete tried.reservation_id;
    return { ...tried, status: 'deleted' };
  }
  if (outcome.statusCode === 202) {
    return {
      ...tried,
      status: 'reserved',
      reservation_id: context.reservationId,
      due_at: context.now + context.acknowledgeWithinMs,
    };
  }
  return failed(outcome.final ? { ...tried, retries_remaining: 0 } : tried, context);
}

/** A lapsed 202 counts as a failed try. */
export function afterLapse(status: SubscriberStatus, context: RoundContext): SubscriberStatus {
  return failed({ ...status, error: 'acknowledgement not received in time' }, context);
}

export function isAccepted(status: SubscriberStatus): boolean {
  return status.status === 'deleted' || status.status === 'reserved';
}
