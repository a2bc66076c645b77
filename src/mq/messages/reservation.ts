import { fail } from '../../core/errors.js';
import { LIMITS } from '../limits.js';

/** What a client asks of a reserve (v1 `GET …/messages`, v3 `POST …/reservations`), as sent. */
export interface ReservationRequest {
  n?: number;
  /** Seconds; absent or 0: the queue's message_timeout (or a v1 message's own). */
  timeout?: number;
  /** Seconds to wait for messages on an empty queue (v3 only). */
  wait?: number;
  /** Remove the messages as they are reserved (v3 only). */
  delete?: boolean;
}

/** A reserve within the bounds: what reserve.lua is asked for. */
export interface Reservation {
  n: number;
  /** Seconds; 0 = the queue's message_timeout, or a v1 message's own (reserve.lua reads them). */
  timeout: number;
  waitSeconds: number;
  delete: boolean;
}

/**
 * The reservation rule, for both API versions: `n` above the documented 100 is served as 100
 * (fewer messages may always come back); a timeout is 0 (the queue's) or within
 * [minTimeoutSeconds, 86400]; clients in the wild ask to wait up to 60 s, and more than the
 * documented 30 is served as 30.
 */
export function reservationOf(request: ReservationRequest, minTimeoutSeconds: number): Reservation {
  return {
    n: messageCount(request.n),
    timeout: timeoutOrQueues(request.timeout, 'timeout', minTimeoutSeconds),
    waitSeconds: Math.min(request.wait ?? 0, LIMITS.maxWaitSeconds),
    delete: request.delete ?? false,
  };
}

/** `n` of reserve and peek: 1 when absent, at most 100. */
export function messageCount(n: number | undefined): number {
  return Math.min(n ?? 1, LIMITS.maxMessagesPerCall);
}

/**
 * A reservation timeout (reserve, touch, a v1 message's own) in seconds: absent or 0 stays 0,
 * which the scripts read as "the queue's message_timeout" (or the message's own); else it
 * must lie within the bounds, and the error names `field`.
 */
export function timeoutOrQueues(value: number | undefined, field: string, minTimeoutSeconds: number): number {
  if (value === undefined || value === 0) return 0;
  if (value < minTimeoutSeconds || value > LIMITS.maxTimeoutSeconds)
    throw fail('field_out_of_range', field, minTimeoutSeconds, LIMITS.maxTimeoutSeconds);
  return value;
}
