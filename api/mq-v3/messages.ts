import type { FastifyReply } from 'fastify';
import { JSON_CONTENT_TYPE } from '../json-content-type.js';
import type { ApiPlugin } from '../type-provider.js';
import { badRequest, notAcceptable } from '../../src/core/errors.js';
import { LIMITS } from '../../src/mq/limits.js';
import { checkPushHeaders } from '../../src/mq/push-headers.js';
import type { QueueRef } from '../../src/mq/keys.js';
import type { NewMessage } from '../../src/mq/types.js';
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
import {
  messageSchema,
  messagesResponseSchema,
  messageView,
  pushStatusesResponseSchema,
  pushStatusView,
  reservedMessagesJson,
} from './views.js';
import { ANY_BUT_NULL } from '../../src/core/null-fields.js';

interface DeleteEntry {
  id: string;
  reservation_id?: string;
  subscriber_name?: string;
}

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
        properties: { body: { type: 'string' }, delay: delaySchema, push_headers: ANY_BUT_NULL },
      },
    },
  },
} as const;

const reserveBody = {
  type: 'object',
  properties: {
    n: countSchema,
    timeout: { type: 'integer' },
    wait: { type: 'integer', minimum: 0 },
    delete: { type: 'boolean' },
  },
} as const;

const reservationBody = {
  type: 'object',
  properties: { reservation_id: { type: 'string' }, subscriber_name: { type: 'string' } },
} as const;

const batchDeleteBody = {
  type: 'object',
  properties: {
    ids: {
      type: 'array',
      minItems: 1,
      maxItems: LIMITS.maxBatchDelete,
      items: {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'string' }, reservation_id: { type: 'string' }, subscriber_name: { type: 'string' } },
      },
    },
  },
} as const;

/** Messages: post, reserve (with long-poll), get, peek, delete, batch delete, clear, touch, release. */
export const messageRoutes: ApiPlugin<MqRouteOptions> = async (app, { ctx, mq }) => {
  const minTimeout = ctx.config.mq.minTimeoutSeconds;

  /** A reservation timeout: undefined or 0 → the queue's message_timeout. */
  function reservationTimeout(value: number | undefined, field: string): number | undefined {
    if (value === undefined || value === 0) return undefined;
    if (value < minTimeout || value > LIMITS.maxTimeoutSeconds) {
      throw badRequest(`${field} must be between ${minTimeout} and ${LIMITS.maxTimeoutSeconds}`);
    }
    return value;
  }

  function requiredReservation(body: { reservation_id?: string }): string {
    if (body.reservation_id === undefined) throw notAcceptable('reservation_id is required');
    if (body.reservation_id === '') throw badRequest('reservation_id must not be empty');
    return body.reservation_id;
  }

  /**
   * Entries naming a subscriber acknowledge that subscriber's push delivery (one at a time);
   * the others are deleted together, all or none.
   */
  async function deleteOrAcknowledge(ref: QueueRef, entries: DeleteEntry[]): Promise<void> {
    const deletes: DeleteEntry[] = [];
    for (const entry of entries) {
      if (!entry.subscriber_name) {
        deletes.push(entry);
        continue;
      }
      if (!entry.reservation_id)
        throw notAcceptable('reservation_id is required to acknowledge a push delivery (subscriber_name is given)');
      await mq.push.acknowledge(ref, entry.id, entry.reservation_id, entry.subscriber_name);
    }
    if (deletes.length > 0)
      await mq.delete(
        ref,
        deletes.map((entry) => ({ id: entry.id, reservationId: entry.reservation_id || undefined })),
      );
  }

  /** Aborts when the client goes away before the answer is sent (ends long-polls early). */
  function abortOnDisconnect(reply: FastifyReply): AbortSignal {
    const controller = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    return controller.signal;
  }

  app.post('/3/projects/:project_id/queues/:queue_name/messages', {
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
      const posted: NewMessage[] = messages.map((message, i) => ({
        body: message.body,
        delay: message.delay,
        pushHeaders:
          message.push_headers === undefined
            ? undefined
            : checkPushHeaders(message.push_headers, `messages[${i}].push_headers`),
      }));
      const ids = await mq.post(queueRefOf(request), posted, queueQuotasOf(request, ctx.config.quotas));
      return reply.code(201).send({ ids, msg: 'Messages put on queue.' });
    },
  });

  app.post('/3/projects/:project_id/queues/:queue_name/reservations', {
    schema: { params: queueParams, body: reserveBody, response: { 200: messagesResponseSchema } },
    handler: async (request, reply) => {
      const body = request.body;
      const options = {
        n: countOf(body.n),
        timeout: reservationTimeout(body.timeout, 'timeout'),
        delete: body.delete ?? false,
        // Clients in the wild ask for up to 60 s: more than the documented 30 is served as 30.
        waitSeconds: Math.min(body.wait ?? 0, LIMITS.maxWaitSeconds),
      };
      const signal = options.waitSeconds > 0 ? abortOnDisconnect(reply) : undefined;
      const messages = await mq.reserve(queueRefOf(request), options, signal);
      return reply.type(JSON_CONTENT_TYPE).send(reservedMessagesJson(messages));
    },
  });

  app.get('/3/projects/:project_id/queues/:queue_name/messages/:message_id', {
    schema: { params: messageParams, response: { 200: { type: 'object', properties: { message: messageSchema } } } },
    handler: async (request) => ({
      message: messageView(await mq.messages.get(queueRefOf(request), messageIdOf(request))),
    }),
  });

  app.get('/3/projects/:project_id/queues/:queue_name/messages', {
    schema: {
      params: queueParams,
      querystring: { type: 'object', properties: { n: countSchema } },
      response: { 200: messagesResponseSchema },
    },
    handler: async (request) => {
      const { n } = request.query;
      const messages = await mq.messages.peek(queueRefOf(request), countOf(n));
      return { messages: messages.map(messageView) };
    },
  });

  app.delete('/3/projects/:project_id/queues/:queue_name/messages/:message_id', {
    schema: { params: messageParams, body: reservationBody, response: { 200: msgSchema } },
    handler: async (request) => {
      const entry = request.body;
      await deleteOrAcknowledge(queueRefOf(request), [{ ...entry, id: messageIdOf(request) }]);
      return { msg: 'Deleted' };
    },
  });

  app.get('/3/projects/:project_id/queues/:queue_name/messages/:message_id/subscribers', {
    schema: { params: messageParams, response: { 200: pushStatusesResponseSchema } },
    handler: async (request) => {
      const statuses = await mq.push.statuses(queueRefOf(request), messageIdOf(request));
      return { subscribers: statuses.map(pushStatusView) };
    },
  });

  app.delete('/3/projects/:project_id/queues/:queue_name/messages', {
    schema: { params: queueParams, body: batchDeleteBody, response: { 200: msgSchema } },
    handler: async (request) => {
      const { ids } = request.body ?? {};
      const ref = queueRefOf(request);
      if (ids === undefined) {
        // Clearing cannot be undone: it takes the explicit body {} the official clients send.
        if (request.body == null || request.emptyJsonBody)
          throw badRequest('Clearing a queue needs the JSON body {}; to delete messages give "ids"');
        await mq.clear(ref);
        return { msg: 'Cleared' };
      }
      await deleteOrAcknowledge(ref, ids);
      return { msg: 'Deleted' };
    },
  });

  app.post('/3/projects/:project_id/queues/:queue_name/messages/:message_id/touch', {
    schema: {
      params: messageParams,
      body: { type: 'object', properties: { reservation_id: { type: 'string' }, timeout: { type: 'integer' } } },
      response: {
        200: { type: 'object', properties: { reservation_id: { type: 'string' }, msg: { type: 'string' } } },
      },
    },
    handler: async (request) => {
      const body = request.body;
      const reservationId = requiredReservation(body);
      const touched = await mq.messages.touch(
        queueRefOf(request),
        messageIdOf(request),
        reservationId,
        reservationTimeout(body.timeout, 'timeout'),
      );
      return { reservation_id: touched.reservationId, msg: 'Touched' };
    },
  });

  app.post('/3/projects/:project_id/queues/:queue_name/messages/:message_id/release', {
    schema: {
      params: messageParams,
      body: { type: 'object', properties: { reservation_id: { type: 'string' }, delay: delaySchema } },
      response: { 200: msgSchema },
    },
    handler: async (request) => {
      const body = request.body;
      await mq.messages.release(queueRefOf(request), messageIdOf(request), requiredReservation(body), body.delay ?? 0);
      return { msg: 'Released' };
    },
  });
};
