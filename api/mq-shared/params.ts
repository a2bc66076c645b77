/** What the version 1 and version 3 message queue APIs share: route options, path parameters, limits. */
import type { WithParams } from '../type-provider.js';
import { checkQueueName } from '../../src/mq/fields.js';
import { LIMITS } from '../../src/mq/limits.js';
import type { QueueRef } from '../../src/mq/scripts.js';
import type { FastifyRequest } from 'fastify';
import { quotasOf, type Quotas } from '../../src/auth/quotas.js';
import type { MessageQueue } from '../../src/mq/message-queue.js';
import { queueQuotasFrom, type QueueQuotas } from '../../src/mq/queues/queue-quotas.js';
import { projectOf } from '../auth-hooks.js';
import type { AppContext } from '../context.js';

/** What each route group of both message queue API versions is given. */
export interface MqRouteOptions {
  ctx: AppContext;
  mq: MessageQueue;
}

/** `n` of reserve and peek, and `delay` of post and release: the same limits in both API versions. */
export const countSchema = { type: 'integer', minimum: 1 } as const;

export const delaySchema = { type: 'integer', minimum: 0, maximum: LIMITS.maxDelaySeconds } as const;

/** Body of the subscriber routes (add, replace, remove) of v1 and v3; each checks the list itself. */
export const msgSchema = { type: 'object', properties: { msg: { type: 'string' } } } as const;

export const projectParams = {
  type: 'object',
  required: ['project_id'],
  properties: { project_id: { type: 'string' } },
} as const;

export const queueParams = {
  type: 'object',
  required: ['project_id', 'queue_name'],
  properties: { project_id: { type: 'string' }, queue_name: { type: 'string' } },
} as const;

export const messageParams = {
  type: 'object',
  required: ['project_id', 'queue_name', 'message_id'],
  properties: { project_id: { type: 'string' }, queue_name: { type: 'string' }, message_id: { type: 'string' } },
} as const;

/** The queue a request's path names, in the request's (already authorized) project. */
export function queueRefOf(request: WithParams<{ queue_name: string }>): QueueRef {
  const { queue_name: name } = request.params;
  return { projectId: projectOf(request).id, name: checkQueueName(name) };
}

/** The queue quotas of the request's project: its own, else the operator's defaults. */
export function queueQuotasOf(request: FastifyRequest, defaults: Quotas): QueueQuotas {
  return queueQuotasFrom(quotasOf(projectOf(request), defaults));
}

export function messageIdOf(request: WithParams<{ message_id: string }>): string {
  return request.params.message_id;
}
