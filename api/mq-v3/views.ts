import { toRfc3339 } from '../../src/core/time.js';
import type { PushStatus } from '../../src/mq/push/status.js';
import type { Message, QueueInfo, QueueSettings, ReservedJsonPieces, ReservedMessage } from '../../src/mq/types.js';
import { Outcome } from '../../src/mq/scripts.js';
import { refusal } from '../../src/mq/messages/script-io.js';

/** Wire shapes of the version 3 message queue. */

const freeObject = { type: 'object', additionalProperties: true } as const;

const queueProperties = {
  project_id: { type: 'string' },
  name: { type: 'string' },
  size: { type: 'integer' },
  total_messages: { type: 'integer' },
  // Ferrum extension: the size by state (ready + delayed + reserved = size).
  ready: { type: 'integer' },
  delayed: { type: 'integer' },
  reserved: { type: 'integer' },
  message_timeout: { type: 'integer' },
  message_expiration: { type: 'integer' },
  type: { type: 'string' },
  push: freeObject,
  dead_letter: {
    type: 'object',
    properties: { queue_name: { type: 'string' }, max_reservations: { type: 'integer' } },
  },
  alerts: { type: 'array', items: freeObject },
} as const;

export const queueResponseSchema = {
  type: 'object',
  required: ['queue'],
  properties: {
    queue: {
      type: 'object',
      required: ['project_id', 'name', 'message_timeout', 'message_expiration', 'type'],
      properties: queueProperties,
    },
  },
} as const;

const messageProperties = {
  id: { type: 'string' },
  body: { type: 'string' },
  reserved_count: { type: 'integer' },
  reservation_id: { type: 'string' },
  push_headers: { type: 'object', additionalProperties: { type: 'string' } },
} as const;

export const messageSchema = {
  type: 'object',
  required: ['id', 'body', 'reserved_count'],
  properties: messageProperties,
} as const;
export const messagesResponseSchema = {
  type: 'object',
  properties: { messages: { type: 'array', items: messageSchema } },
} as const;

type QueueCounters = Pick<QueueInfo, 'size' | 'totalMessages' | 'ready' | 'delayed' | 'reserved'>;

/** A queue as Get, Update and Create answer it (Create leaves out the counters). */
export function queueView(projectId: string, name: string, settings: QueueSettings, counters?: QueueCounters) {
  return {
    queue: {
      project_id: projectId,
      name,
      ...(counters ? countersView(counters) : {}),
      message_timeout: settings.messageTimeout,
      message_expiration: settings.messageExpiration,
      type: settings.type,
      ...(settings.push ? { push: settings.push } : {}),
      ...(settings.deadLetter ? { dead_letter: settings.deadLetter } : {}),
      ...(settings.alerts ? { alerts: settings.alerts } : {}),
    },
  };
}

function countersView(counters: QueueCounters) {
  const { size, totalMessages, ready, delayed, reserved } = counters;
  return { size, total_messages: totalMessages, ready, delayed, reserved };
}

export function messageView(message: Message | ReservedMessage) {
  return {
    id: message.id,
    body: message.body,
    reserved_count: message.reservedCount,
    ...('reservationId' in message ? { reservation_id: message.reservationId } : {}),
    ...(message.pushHeaders ? { push_headers: message.pushHeaders } : {}),
  };
}

const pushStatusProperties = {
  name: { type: 'string' },
  url: { type: 'string' },
  status: { type: 'string' },
  retries_remaining: { type: 'integer' },
  retries_delay: { type: 'integer' },
  tries: { type: 'integer' },
  status_code: { type: 'integer' },
  last_try_at: { type: 'string' },
  error_message: { type: 'string' },
} as const;

export const pushStatusesResponseSchema = {
  type: 'object',
  properties: { subscribers: { type: 'array', items: { type: 'object', properties: pushStatusProperties } } },
} as const;

/** A subscriber's push status of one message (last_try_at and error_message only once tried). */
export function pushStatusView(status: PushStatus) {
  return {
    name: status.name,
    url: status.url,
    status: status.status,
    retries_remaining: status.retriesRemaining,
    retries_delay: status.retriesDelay,
    tries: status.tries,
    status_code: status.statusCode,
    ...(status.lastTryAt > 0 ? { last_try_at: toRfc3339(status.lastTryAt) } : {}),
    ...(status.error ? { error_message: status.error } : {}),
  };
}

/**
 * Reserved messages as version 3 answers them, the JSON text of the `messages` list written from
 * the pieces reserve gives (no body decoded): byte for byte what JSON.stringify writes of the
 * messages' views.
 */
export function reservedMessagesJson(pieces: ReservedJsonPieces): string {
  const { ids, reservationIds, reservedCounts, bodies, pushHeaders } = pieces;
  let json = '[';
  for (let i = 0; i < ids.length; i++) {
    json += `${i === 0 ? '' : ','}{"id":"${ids[i]}","body":${bodies[i]},"reserved_count":${reservedCounts[i]},"reservation_id":"${reservationIds[i]}"`;
    const headers = pushHeaders?.[i];
    json += headers ? `,"push_headers":${headers}}` : '}';
  }
  return `${json}]`;
}

/**
 * What became of a reserve's `delete_reserved` (Ferrum's ack-and-next), as the members that follow
 * `messages`: `deleted`, how many were, and `not_deleted`, each one that was not (its reservation
 * timed out, or it is gone) with the message a batch delete would have answered.
 */
export function reservedDeletesJson(refs: { id: string; reservation_id: string }[], outcomes: number[]): string {
  let deleted = 0;
  const notDeleted: { id: string; reservation_id: string; msg: string }[] = [];
  refs.forEach((ref, i) => {
    const outcome = outcomes[i] ?? Outcome.ok;
    if (outcome === Outcome.ok) deleted++;
    else notDeleted.push({ id: ref.id, reservation_id: ref.reservation_id, msg: refusal(outcome).message });
  });
  return `,"deleted":${deleted},"not_deleted":${JSON.stringify(notDeleted)}`;
}
