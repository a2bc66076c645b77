import type { FastifyReply } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { JSON_CONTENT_TYPE } from '../json-content-type.js';
import type { ApiInstance, ApiPlugin } from '../type-provider.js';
import { fail } from '../../src/core/errors.js';
import { LIMITS } from '../../src/mq/limits.js';
import { checkPushHeaders } from '../../src/mq/messages/push-headers.js';
import type { DeleteTarget } from '../../src/mq/messages/script-io.js';
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
import {
  messageSchema,
  messagesResponseSchema,
  messageView,
  pushStatusesResponseSchema,
  pushStatusView,
  reservedDeletesJson,
  reservedMessagesJson,
} from './views.js';
import { isPlainBatchDelete } from './batch-delete-check.js';
import { isPlainReserve } from './reserve-body-check.js';
import { withQuickCheck } from '../quick-body-check.js';

const QUEUE = '/3/projects/:project_id/queues/:queue_name';
const MESSAGE = `${QUEUE}/messages/:message_id`;

// push_headers' entries are checked by checkPushHeaders (names, reserved ones, values), nulls included.
const postBody = postBodySchema({ delay: delaySchema, push_headers: { type: 'object' } });

export const reserveBody = withQuickCheck(
  {
    type: 'object',
    properties: {
      n: countSchema,
      timeout: { type: 'integer' },
      wait: { type: 'integer', minimum: 0 },
      delete: { type: 'boolean' },
      // Ferrum's ack-and-next: the batch just processed, deleted in the reserve's own script.
      delete_reserved: {
        type: 'array',
        maxItems: LIMITS.maxBatchDelete,
        items: {
          type: 'object',
          required: ['id', 'reservation_id'],
          properties: { id: { type: 'string' }, reservation_id: { type: 'string' } },
        },
      },
    },
  } as const,
  isPlainReserve,
);

const deleteEntry = {
  type: 'object',
  properties: { reservation_id: { type: 'string' }, subscriber_name: { type: 'string' } },
} as const;

export const batchDeleteBody = withQuickCheck(
  {
    type: 'object',
    properties: {
      ids: batchDeleteIds({
        ...deleteEntry,
        required: ['id'],
        properties: { id: { type: 'string' }, ...deleteEntry.properties },
      }),
    },
  } as const,
  isPlainBatchDelete,
);

type DeleteEntry = FromSchema<typeof deleteEntry> & { id: string };

/** A delete entry as the domain takes it: an empty reservation id is none. */
function deleteTarget(entry: DeleteEntry): DeleteTarget {
  return { id: entry.id, reservationId: entry.reservation_id || undefined, subscriberName: entry.subscriber_name };
}

/** A batch delete's ids and reservation ids, as two lists (no object per id on a consumer's every batch). */
function idsAndReservations(entries: DeleteEntry[]): [string[], (string | undefined)[]] {
  const ids = new Array<string>(entries.length);
  const reservations = new Array<string | undefined>(entries.length);
  for (let i = 0; i < entries.length; i++) {
    ids[i] = entries[i]!.id;
    reservations[i] = entries[i]!.reservation_id;
  }
  return [ids, reservations];
}

function requiredReservation(body: { reservation_id?: string }): string {
  if (body.reservation_id === undefined) throw fail('mq_reservation_id_required');
  if (body.reservation_id === '') throw fail('mq_reservation_id_empty');
  return body.reservation_id;
}

/** Aborts when the client goes away before the answer is sent (ends long-polls early). */
function abortOnDisconnect(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** Messages: post, reserve (with long-poll), get, peek, delete, batch delete, clear, touch, release. */
export const messageRoutes: ApiPlugin<MqRouteOptions> = async (app, options) => {
  postAndReserveRoutes(app, options);
  readRoutes(app, options);
  deleteRoutes(app, options);
  reservationRoutes(app, options);
};

function postAndReserveRoutes(app: ApiInstance, options: MqRouteOptions): void {
  const { mq } = options;
  postMessagesRoute(
    app,
    `${QUEUE}/messages`,
    options,
    postBody,
    (message: FromSchema<typeof postBody>['messages'][number], i) => ({
      body: message.body,
      delay: message.delay,
      pushHeaders:
        message.push_headers === undefined
          ? undefined
          : checkPushHeaders(message.push_headers, `messages[${i}].push_headers`),
    }),
  );

  app.post(`${QUEUE}/reservations`, {
    schema: { params: queueParams, body: reserveBody, response: { 200: messagesResponseSchema } },
    handler: async (request, reply) => {
      const { body } = request;
      const signal = body.wait ? abortOnDisconnect(reply) : undefined;
      const refs = body.delete_reserved;
      const deleteReserved = refs?.map((ref) => ({ id: ref.id, reservationId: ref.reservation_id }));
      const reserved = await mq.reserve(queueRefOf(request), { ...body, deleteReserved }, signal);
      // The messages' JSON text, written from reserve.lua's reply without decoding a body: sent as it stands.
      const messages = reservedMessagesJson(reserved.jsonPieces);
      const deletes = refs ? reservedDeletesJson(refs, reserved.deleteOutcomes) : '';
      return reply.type(JSON_CONTENT_TYPE).send(`{"messages":${messages}${deletes}}`);
    },
  });
}

function readRoutes(app: ApiInstance, { mq }: MqRouteOptions): void {
  app.get(MESSAGE, {
    schema: { params: messageParams, response: { 200: { type: 'object', properties: { message: messageSchema } } } },
    handler: async (request) => ({
      message: messageView(await mq.get(queueRefOf(request), messageIdOf(request))),
    }),
  });

  app.get(`${QUEUE}/messages`, {
    schema: {
      params: queueParams,
      querystring: { type: 'object', properties: { n: countSchema } },
      response: { 200: messagesResponseSchema },
    },
    handler: async (request) => {
      const messages = await mq.peek(queueRefOf(request), request.query.n);
      return { messages: messages.map(messageView) };
    },
  });

  app.get(`${MESSAGE}/subscribers`, {
    schema: { params: messageParams, response: { 200: pushStatusesResponseSchema } },
    handler: async (request) => {
      const statuses = await mq.push.statuses(queueRefOf(request), messageIdOf(request));
      return { subscribers: statuses.map(pushStatusView) };
    },
  });
}

function deleteRoutes(app: ApiInstance, { mq }: MqRouteOptions): void {
  app.delete(MESSAGE, {
    schema: { params: messageParams, body: deleteEntry, response: { 200: msgSchema } },
    handler: async (request) => {
      await mq.delete(queueRefOf(request), [deleteTarget({ ...request.body, id: messageIdOf(request) })]);
      return { msg: 'Deleted' };
    },
  });

  app.delete(`${QUEUE}/messages`, {
    schema: { params: queueParams, body: batchDeleteBody, response: { 200: msgSchema } },
    handler: async (request) => {
      const { ids } = request.body ?? {};
      const ref = queueRefOf(request);
      if (ids === undefined) {
        // Clearing cannot be undone: it takes the explicit body {} the official clients send.
        if (request.body == null || request.emptyJsonBody) throw fail('mq_clear_needs_body');
        await mq.clear(ref);
        return { msg: 'Cleared' };
      }
      if (ids.some((entry) => entry.subscriber_name)) await mq.delete(ref, ids.map(deleteTarget));
      else await mq.deleteBatch(ref, ...idsAndReservations(ids));
      return { msg: 'Deleted' };
    },
  });
}

function reservationRoutes(app: ApiInstance, { mq }: MqRouteOptions): void {
  app.post(`${MESSAGE}/touch`, {
    schema: {
      params: messageParams,
      body: { type: 'object', properties: { reservation_id: { type: 'string' }, timeout: { type: 'integer' } } },
      response: {
        200: { type: 'object', properties: { reservation_id: { type: 'string' }, msg: { type: 'string' } } },
      },
    },
    handler: async (request) => {
      const { body } = request;
      const reservationId = requiredReservation(body);
      const touched = await mq.touch(queueRefOf(request), messageIdOf(request), reservationId, body.timeout);
      return { reservation_id: touched.reservationId, msg: 'Touched' };
    },
  });

  app.post(`${MESSAGE}/release`, {
    schema: {
      params: messageParams,
      body: { type: 'object', properties: { reservation_id: { type: 'string' }, delay: delaySchema } },
      response: { 200: msgSchema },
    },
    handler: async (request) => {
      const { body } = request;
      await mq.release(queueRefOf(request), messageIdOf(request), requiredReservation(body), body.delay ?? 0);
      return { msg: 'Released' };
    },
  });
}
