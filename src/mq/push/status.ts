import type { PushSettings } from '../types.js';

export const PUSH_STATES = ['queued', 'reserved', 'retrying', 'error', 'deleted'] as const;
export type PushState = (typeof PUSH_STATES)[number];

/** One subscriber's delivery status of one message, as stored (JSON) in the status hash. */
export interface SubscriberStatus {
  url: string;
  status: PushState;
  tries: number;
  retries_remaining: number;
  /** The last answer's HTTP status; 0 when there was none (connection error, timeout) or no try yet. */
  status_code: number;
  /** Epoch ms of the last try; 0 before the first. */
  last_try_at: number;
  /** Why the last try failed, '' when it did not. */
  error: string;
  /** The reservation a 202 answer must be acknowledged with. */
  reservation_id?: string;
  /** Epoch ms: the next retry (retrying) or the acknowledgement deadline (reserved). */
  due_at?: number;
}

/** A subscriber's status as the APIs show it. */
export interface PushStatus {
  name: string;
  url: string;
  status: PushState;
  tries: number;
  retriesRemaining: number;
  retriesDelay: number;
  statusCode: number;
  lastTryAt: number;
  error: string;
}

export function freshStatus(url: string, push: PushSettings): SubscriberStatus {
  return {
    url,
    status: 'queued',
    tries: 0,
    retries_remaining: push.retries,
    status_code: 0,
    last_try_at: 0,
    error: '',
  };
}

export function isFinal(status: SubscriberStatus): boolean {
  return status.status === 'deleted' || status.status === 'error';
}
