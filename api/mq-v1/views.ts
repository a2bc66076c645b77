import { createHash } from 'node:crypto';
import { LIMITS } from '../../src/mq/limits.js';
import type { QueueRef } from '../../src/mq/scripts.js';
import type { Message, QueueInfo } from '../../src/mq/types.js';

/** Wire shapes of the version 1 message queue. */

const freeObject = { type: 'object', additionalProperties: true } as const;

/** A queue's version 1 id: stable for its project and name (version 3 queues have none). */
export function queueIdOf(ref: QueueRef): string {
  return createHash('sha1').update(`${ref.projectId}\n${ref.name}`).digest('hex').slice(0, 24);
}

export const queueListSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: { id: { type: 'string' }, project_id: { type: 'string' }, name: { type: 'string' } },
  },
} as const;

export const queueSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    project_id: { type: 'string' },
    size: { type: 'integer' },
    total_messages: { type: 'integer' },
    push_type: { type: 'string' },
    retries: { type: 'integer' },
    retries_delay: { type: 'integer' },
    subscribers: { type: 'array', items: { type: 'object', properties: { url: { type: 'string' } } } },
    alerts: { type: 'array', items: freeObject },
  },
} as const;

export function queueView(info: QueueInfo) {
  return {
    id: queueIdOf(info),
    name: info.name,
    project_id: info.projectId,
    size: info.size,
    total_messages: info.totalMessages,
    push_type: info.type,
    retries: info.push?.retries ?? LIMITS.defaultRetries,
    retries_delay: info.push?.retries_delay ?? LIMITS.defaultRetriesDelaySeconds,
    subscribers: (info.push?.subscribers ?? []).map((subscriber) => ({ url: subscriber.url })),
    ...(info.alerts ? { alerts: info.alerts } : {}),
  };
}

const messageSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    body: { type: 'string' },
    timeout: { type: 'integer' },
    reserved_count: { type: 'integer' },
    push_headers: { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const;

export const messagesSchema = {
  type: 'object',
  properties: { messages: { type: 'array', items: messageSchema }, timeout: { type: 'integer' } },
} as const;

export { messageSchema };

export function messageView(message: Message) {
  return {
    id: message.id,
    body: message.body,
    timeout: message.timeout ?? LIMITS.defaultTimeoutSeconds,
    reserved_count: message.reservedCount,
    ...(message.pushHeaders ? { push_headers: message.pushHeaders } : {}),
  };
}
