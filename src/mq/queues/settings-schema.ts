import { ANY_BUT_NULL } from '../../core/null-fields.js';
import { LIMITS } from '../limits.js';
import { QUEUE_TYPES } from '../types.js';

/**
 * The JSON schemas of a queue's settings as clients send them (v3 `queue`, v1 alerts): types,
 * required fields and ranges are checked by the route's schema, so a refusal is one of the
 * generic field rows; the parsers of queue-settings.ts keep only the rules a schema cannot say
 * (names, URLs, headers, a queue naming itself, 0 meaning the default).
 */

const SUBSCRIBER_FIELDS = {
  name: { type: 'string', minLength: 1 },
  url: { type: 'string' },
  headers: { type: 'object', additionalProperties: ANY_BUT_NULL },
} as const;

/** A push subscriber (v3 queue settings, v3 add and replace): a name and a url. */
export const SUBSCRIBER_SCHEMA = { type: 'object', required: ['name', 'url'], properties: SUBSCRIBER_FIELDS } as const;

/** A v3 subscriber to remove: named, its url not needed. */
export const SUBSCRIBER_TO_REMOVE_SCHEMA = {
  type: 'object',
  required: ['name'],
  properties: SUBSCRIBER_FIELDS,
} as const;

/** A v1 subscriber: a url, no name. */
export const V1_SUBSCRIBER_SCHEMA = {
  type: 'object',
  required: ['url'],
  properties: { ...SUBSCRIBER_FIELDS, name: { type: 'string' } },
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

/** The body of a subscriber route (v1 and v3): a list of `subscriber`. */
export function subscribersBodyOf<const Subscriber extends object>(subscriber: Subscriber) {
  return {
    type: 'object',
    required: ['subscribers'],
    properties: { subscribers: { type: 'array', items: subscriber } },
  } as const;
}
