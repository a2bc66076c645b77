import type { FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import type { ApiInstance, ApiPlugin } from '../type-provider.js';
import { fail } from '../../src/core/errors.js';
import { LIMITS } from '../../src/mq/limits.js';
import { anyReservation } from '../../src/mq/messages/script-io.js';
import { subscriberIdOf } from '../../src/mq/push/v1-subscriber-ids.js';
import {
  countSchema,
  delaySchema,
  messageIdOf,
  messageParams,
  msgSchema,
  queueParams,
  queueRefOf,
  type MqRouteOptions,
} from '../mq-shared/params.js';
import { batchDeleteIds, postBodySchema, postMessagesRoute } from '../mq-shared/messages.js';
import { messageSchema, messagesSchema, messageView } from './views.js';

const postBody = postBodySchema({
  timeout: { type: 'integer' },
  delay: delaySchema,
  expires_in: { type: 'integer', minimum: 0, maximum: LIMITS.maxExpirationSeconds },
});

const batchDeleteBody = {
  type: 'object',
  required: ['ids'],
  properties: { ids: batchDeleteIds({ type: 'string' }) },
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
  if (!chunked && (length === undefined || length === '0')) throw fail('mq_release_needs_body');
}

/**
 * Messages: post (per-message timeout, delay, expires_in), get (= reserve), peek, get one,
 * delete (no reservation id in version 1), touch, release, push statuses and acknowledgement.
 */
export const messageRoutes: ApiPlugin<MqRouteOptions> = async (app, options) => {
  postAndReserveRoutes(app, options);
  messageRoutesById(app, options);
  pushStatusRoutes(app, options);
};

const BASE = '/1/projects/:project_id/queues/:queue_name/messages';

function postAndReserveRoutes(app: ApiInstance, options: MqRouteOptions): void {
  const { mq } = options;
  postMessagesRoute(app, BASE, options, postBody, (message: FromSchema<typeof postBody>['messages'][number]) => ({
    body: message.body,
    delay: message.delay,
    timeout: message.timeout,
    expiresIn: message.expires_in || undefined,
  }));

  app.get(BASE, {
    schema: {
      params: queueParams,
      querystring: { type: 'object', properties: { n: countSchema, timeout: { type: 'integer' } } },
      response: { 200: messagesSchema },
    },
    handler: async (request) => {
      const result = await mq.reserve(queueRefOf(request), request.query);
      // The timeout applied: the one asked for, else the messages' own (set when they were posted).
      return { messages: result.messages.map(messageView), timeout: result.messages[0]?.timeout ?? result.timeout };
    },
  });

  app.get(`${BASE}/peek`, {
    schema: {
      params: queueParams,
      querystring: { type: 'object', properties: { n: countSchema } },
      response: { 200: messagesSchema },
    },
    handler: async (request) => ({
      messages: (await mq.peek(queueRefOf(request), request.query.n)).map(messageView),
    }),
  });
}

/** Get, delete, touch and release one message, and delete several (any reservation: v1 has no ids). */
function messageRoutesById(app: ApiInstance, { mq }: MqRouteOptions): void {
  app.get(`${BASE}/:message_id`, {
    schema: { params: messageParams, response: { 200: messageSchema } },
    handler: async (request) => messageView(await mq.get(queueRefOf(request), messageIdOf(request))),
  });

  app.delete(`${BASE}/:message_id`, {
    schema: { params: messageParams, response: { 200: msgSchema } },
    handler: async (request) => {
      await mq.delete(queueRefOf(request), [{ id: messageIdOf(request), reservationId: anyReservation }]);
      return { msg: 'Deleted' };
    },
  });

  app.delete(BASE, {
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

  app.post(`${BASE}/:message_id/touch`, {
    schema: { params: messageParams, body: { type: 'object' }, response: { 200: msgSchema } },
    handler: async (request) => {
      await mq.touch(queueRefOf(request), messageIdOf(request), anyReservation);
      return { msg: 'Touched' };
    },
  });

  app.post(`${BASE}/:message_id/release`, {
    schema: {
      params: messageParams,
      body: { type: 'object', properties: { delay: delaySchema } },
      response: { 200: msgSchema },
    },
    handler: async (request) => {
      requireBody(request);
      const { delay } = request.body;
      await mq.release(queueRefOf(request), messageIdOf(request), anyReservation, delay ?? 0);
      return { msg: 'Released' };
    },
  });
}

function pushStatusRoutes(app: ApiInstance, { mq }: MqRouteOptions): void {
  app.get(`${BASE}/:message_id/subscribers`, {
    schema: { params: messageParams, response: { 200: pushStatusesSchema } },
    handler: async (request) => {
      const statuses = await mq.push.statuses(queueRefOf(request), messageIdOf(request));
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

  app.delete(`${BASE}/:message_id/subscribers/:subscriber_id`, {
    schema: { params: subscriberParams, response: { 200: msgSchema } },
    handler: async (request) => {
      const { subscriber_id: subscriberId } = request.params;
      await mq.push.acknowledgeBySubscriberId(queueRefOf(request), messageIdOf(request), subscriberId);
      return { msg: 'Deleted' };
    },
  });
}
