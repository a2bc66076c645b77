import type { FastifyRequest } from 'fastify';
import type { ApiPlugin } from '../type-provider.js';
import { badRequest } from '../../src/core/errors.js';
import { LIMITS } from '../../src/mq/limits.js';
import { anyReservation } from '../../src/mq/messages/message-store.js';
import { acknowledgePushBySubscriberId, readPushStatuses, subscriberIdOf } from '../../src/mq/push/v1-subscribers.js';
import {
  countOf,
  countSchema,
  delaySchema,
  messageIdOf,
  messageParams,
  msgSchema,
  queueParams,
  queueRefOf,
  type MqRouteOptions,
  queueQuotasOf,
} from '../mq-shared/params.js';
import { messageSchema, messagesSchema, messageView } from './views.js';

const postBody = {
  type: 'object',
  required: ['messages'],
  properties: {
    messages: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['body'],
        properties: {
          body: { type: 'string' },
          timeout: { type: 'integer' },
          delay: delaySchema,
          expires_in: { type: 'integer', minimum: 0, maximum: LIMITS.maxExpirationSeconds },
        },
      },
    },
  },
} as const;

const batchDeleteBody = {
  type: 'object',
  required: ['ids'],
  properties: { ids: { type: 'array', minItems: 1, maxItems: LIMITS.maxBatchDelete, items: { type: 'string' } } },
} as const;

const subscriberParams = {
  type: 'object',
  required: ['project_id', 'queue_name', 'message_id', 'subscriber_id'],
  properties: {
    project_id: { type: 'string' },
    queue_name: { type: 'string' },
    message_id: { type: 'string' },
    subscriber_id: { type: 'string' },
  },
} as const;

const pushStatusesSchema = {
  type: 'object',
  properties: {
    subscribers: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          url: { type: 'string' },
          status: { type: 'string' },
          status_code: { type: ['integer', 'null'] },
          retries_delay: { type: 'integer' },
          retries_remaining: { type: 'integer' },
        },
      },
    },
  },
} as const;

/** Release needs a JSON body even when it is empty (`{}`). */
function requireBody(request: FastifyRequest): void {
  const length = request.headers['content-length'];
  const chunked = request.headers['transfer-encoding'] !== undefined;
  if (!chunked && (length === undefined || length === '0'))
    throw badRequest('a JSON body is required (send {} when there is nothing to set)');
}

/**
 * Messages: post (per-message timeout, delay, expires_in), get (= reserve), peek, get one,
 * delete (no reservation id in version 1), touch, release, push statuses and acknowledgement.
 */
export const messageRoutes: ApiPlugin<MqRouteOptions> = async (app, { ctx, mq }) => {
  const minTimeout = ctx.config.mq.minTimeoutSeconds;
  const base = '/1/projects/:project_id/queues/:queue_name/messages';

  /** A timeout in seconds: undefined or 0 → the message's (or queue's) own. */
  function timeoutOrOwn(value: number | undefined, field: string): number | undefined {
    if (value === undefined || value === 0) return undefined;
    if (value < minTimeout || value > LIMITS.maxTimeoutSeconds)
      throw badRequest(`${field} must be between ${minTimeout} and ${LIMITS.maxTimeoutSeconds}`);
    return value;
  }

  app.post(base, {
    bodyLimit: ctx.config.mq.postBodyLimitBytes,
    schema: {
      params: queueParams,
      body: postBody,
      response: {
        201: {
          type: 'object',
          properties: { ids: { type: 'array', items: { type: 'string' } }, msg: { type: 'string' } },
        },
      },
    },
    handler: async (request, reply) => {
      const { messages } = request.body;
      const posted = messages.map((message, i) => ({
        body: message.body,
        delay: message.delay,
        timeout: timeoutOrOwn(message.timeout, `messages[${i}].timeout`),
        expiresIn: message.expires_in || undefined,
      }));
      const ids = await mq.post(queueRefOf(request), posted, queueQuotasOf(request, ctx.config.quotas));
      return reply.code(201).send({ ids, msg: 'Messages put on queue.' });
    },
  });

  app.get(base, {
    schema: {
      params: queueParams,
      querystring: { type: 'object', properties: { n: countSchema, timeout: { type: 'integer' } } },
      response: { 200: messagesSchema },
    },
    handler: async (request) => {
      const query = request.query;
      const timeout = timeoutOrOwn(query.timeout, 'timeout');
      const result = await mq.reserveOnce(queueRefOf(request), { n: countOf(query.n), timeout });
      // The timeout applied: the one asked for, else the messages' own (set when they were posted).
      const applied = timeout ?? result.messages[0]?.timeout ?? result.timeout;
      return { messages: result.messages.map(messageView), timeout: applied };
    },
  });

  app.get(`${base}/peek`, {
    schema: {
      params: queueParams,
      querystring: { type: 'object', properties: { n: countSchema } },
      response: { 200: messagesSchema },
    },
    handler: async (request) => {
      const { n } = request.query;
      return { messages: (await mq.messages.peek(queueRefOf(request), countOf(n))).map(messageView) };
    },
  });

  app.get(`${base}/:message_id`, {
    schema: { params: messageParams, response: { 200: messageSchema } },
    handler: async (request) => messageView(await mq.messages.get(queueRefOf(request), messageIdOf(request))),
  });

  app.delete(`${base}/:message_id`, {
    schema: { params: messageParams, response: { 200: msgSchema } },
    handler: async (request) => {
      await mq.delete(queueRefOf(request), [{ id: messageIdOf(request), reservationId: anyReservation }]);
      return { msg: 'Deleted' };
    },
  });

  app.delete(base, {
    schema: { params: queueParams, body: batchDeleteBody, response: { 200: msgSchema } },
    handler: async (request) => {
      const { ids } = request.body;
      await mq.delete(
        queueRefOf(request),
        ids.map((id) => ({ id, reservationId: anyReservation })),
      );
      return { msg: 'Deleted' };
    },
  });

  app.post(`${base}/:message_id/touch`, {
    schema: { params: messageParams, body: { type: 'object' }, response: { 200: msgSchema } },
    handler: async (request) => {
      await mq.messages.touch(queueRefOf(request), messageIdOf(request), anyReservation);
      return { msg: 'Touched' };
    },
  });

  app.post(`${base}/:message_id/release`, {
    schema: {
      params: messageParams,
      body: { type: 'object', properties: { delay: delaySchema } },
      response: { 200: msgSchema },
    },
    handler: async (request) => {
      requireBody(request);
      const { delay } = request.body;
      await mq.messages.release(queueRefOf(request), messageIdOf(request), anyReservation, delay ?? 0);
      return { msg: 'Released' };
    },
  });

  app.get(`${base}/:message_id/subscribers`, {
    schema: { params: messageParams, response: { 200: pushStatusesSchema } },
    handler: async (request) => {
      const statuses = await readPushStatuses(mq, queueRefOf(request), messageIdOf(request));
      return {
        subscribers: statuses.map((status) => ({
          id: subscriberIdOf(status.name),
          url: status.url,
          status: status.status,
          status_code: status.statusCode,
          retries_delay: status.retriesDelay,
          retries_remaining: status.retriesRemaining,
        })),
      };
    },
  });

  app.delete(`${base}/:message_id/subscribers/:subscriber_id`, {
    schema: { params: subscriberParams, response: { 200: msgSchema } },
    handler: async (request) => {
      const { subscriber_id: subscriberId } = request.params;
      await acknowledgePushBySubscriberId(mq, queueRefOf(request), messageIdOf(request), subscriberId);
      return { msg: 'Deleted' };
    },
  });
};
