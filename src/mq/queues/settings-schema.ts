import { ANY_BUT_NULL } from '../../core/null-fields.js';
import { LIMITS } from '../limits.js';
import { QUEUE_TYPES } from '../types.js';

/**
 * The JSON schemas of a queue's settings as clients send them (v3 `queue`, v1 alerts): types,
 * required fields and ranges are checked by the route's schema, so a refusal is one of the
 * generic field rows; the parsers of queue-settings.ts keep only the rules a schema cannot say
 * (names, URLs, headers, a queue naming itself, 0 meaning the default).
 */

/**
 * A push subscriber. Which fields are required depends on the route (a v3 removal names no
 * url, a v1 subscriber has no name), so parseSubscribers checks that, with the same generic row.
 */
export const SUBSCRIBER_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    url: { type: 'string' },
    headers: { type: 'object', additionalProperties: ANY_BUT_NULL },
  },
} as const;

export const ALERT_SCHEMA = {
  type: 'object',
  required: ['type', 'queue', 'trigger'],
  properties: {
    type: { enum: ['fixed', 'progressive'] },
    direction: { enum: ['asc', 'desc'] },
    queue: { type: 'string' },
    trigger: { type: 'integer', minimum: 1 },
    snooze: { type: 'integer', minimum: 0 },
  },
} as const;

export const PUSH_SCHEMA = {
  type: 'object',
  properties: {
    subscribers: { type: 'array', items: SUBSCRIBER_SCHEMA },
    retries: { type: 'integer', minimum: 0, maximum: LIMITS.maxRetries },
    retries_delay: { type: 'integer', minimum: 0 },
    error_queue: { type: 'string' },
    rate: { type: 'number', exclusiveMinimum: 0 },
  },
} as const;

/** Read-only fields a client sends back (name, size, ...) are not declared, and ignored. */
export const QUEUE_SETTINGS_SCHEMA = {
  type: 'object',
  properties: {
    type: { enum: QUEUE_TYPES },
    // 0: the default; otherwise at least FERRUM_MQ_MIN_TIMEOUT_SECONDS (checked by parseQueueChanges).
    message_timeout: { type: 'integer', minimum: 0, maximum: LIMITS.maxTimeoutSeconds },
    message_expiration: { type: 'integer', minimum: 0, maximum: LIMITS.maxExpirationSeconds },
    push: PUSH_SCHEMA,
    dead_letter: {
      type: 'object',
      required: ['queue_name'],
      properties: {
        queue_name: { type: 'string' },
        max_reservations: { type: 'integer', minimum: LIMITS.minReservations, maximum: LIMITS.maxReservations },
      },
    },
    alerts: { type: 'array', items: ALERT_SCHEMA },
  },
} as const;

/** The body of the subscriber routes (v1 and v3): a list of subscribers. */
export const SUBSCRIBERS_BODY_SCHEMA = {
  type: 'object',
  required: ['subscribers'],
  properties: { subscribers: { type: 'array', items: SUBSCRIBER_SCHEMA } },
} as const;
