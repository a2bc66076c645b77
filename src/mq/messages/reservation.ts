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
  /**
   * Reserved messages to delete in the same step, before the reserve (v3 `delete_reserved`,
   * ack-and-next): each under its reservation, as a batch delete, but one by one.
   */
  deleteReserved?: ReservedMessageRef[];
}

/** A message under its reservation, as a client names it. */
export interface ReservedMessageRef {
  id: string;
  reservationId: string;
}

/** The messages a reserve deletes first, within the rule (reservedDeletesOf): ids and reservation ids. */
export interface ReservedDeletes {
  ids: string[];
  reservationIds: string[];
}

/** A reserve within the bounds: what reserve.lua is asked for. */
export interface Reservation {
  n: number;
  /** Seconds; 0 = the queue's message_timeout, or a v1 message's own (reserve.lua reads them). */
  timeout: number;
  waitSeconds: number;
  delete: boolean;
  /** Null when the request named none. */
  deleteReserved: ReservedDeletes | null;
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
    deleteReserved: request.deleteReserved ? reservedDeletesOf(request.deleteReserved) : null,
  };
}

const DELETE_RESERVED = 'delete_reserved';

/**
 * The rule for the messages a reserve deletes first: at most a batch delete's count, each with a
 * reservation id, none named twice (its bytes would be given back twice).
 */
export function reservedDeletesOf(refs: ReservedMessageRef[]): ReservedDeletes {
  if (refs.length > LIMITS.maxBatchDelete)
    throw fail('mq_too_many_deletes', DELETE_RESERVED, LIMITS.maxBatchDelete, refs.length);
  const ids = new Array<string>(refs.length);
  const reservationIds = new Array<string>(refs.length);
  const seen = new Map<string, number>();
  for (let i = 0; i < refs.length; i++) {
    const { id, reservationId } = refs[i]!;
    if (reservationId === '') throw fail('field_empty', `${DELETE_RESERVED}[${i}].reservation_id`);
    const first = seen.get(id);
    if (first !== undefined)
      throw fail('mq_delete_given_twice', `${DELETE_RESERVED}[${i}]`, `${DELETE_RESERVED}[${first}]`);
    seen.set(id, i);
    ids[i] = id;
    reservationIds[i] = reservationId;
  }
  return { ids, reservationIds };
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
