/** The message routes' pieces both API versions share: the post route and the batch delete body. */
import type { JSONSchema } from 'json-schema-to-ts';
import { LIMITS } from '../../src/mq/limits.js';
import type { NewMessage } from '../../src/mq/types.js';
import type { ApiInstance } from '../type-provider.js';
import { queueParams, queueQuotasOf, queueRefOf, type MqRouteOptions } from './params.js';

const postedSchema = {
  type: 'object',
  properties: { ids: { type: 'array', items: { type: 'string' } }, msg: { type: 'string' } },
} as const;

/** The body of a post: `{"messages": [...]}`, each message an object with a `body` and `properties`. */
export function postBodySchema<const Properties extends Record<string, JSONSchema>>(properties: Properties) {
  return {
    type: 'object',
    required: ['messages'],
    properties: {
      messages: {
        type: 'array',
        minItems: 1,
        items: { type: 'object', required: ['body'], properties: { body: { type: 'string' }, ...properties } },
      },
    },
  } as const;
}

/** A batch delete's `ids`: 1 to 100 of `item`. */
export function batchDeleteIds<const Item extends JSONSchema>(item: Item) {
  return { type: 'array', minItems: 1, maxItems: LIMITS.maxBatchDelete, items: item } as const;
}

/**
 * `POST <path>` posts the body's messages (validated by `body`, a postBodySchema), each
 * translated by `toMessage` (its position names it in errors), and answers 201 with their ids.
 */
export function postMessagesRoute<Message>(
  app: ApiInstance,
  path: string,
  { ctx, mq }: MqRouteOptions,
  body: JSONSchema,
  toMessage: (message: Message, index: number) => NewMessage,
): void {
  app.post<{ Body: { messages: Message[] }; Params: { queue_name: string } }>(path, {
    bodyLimit: ctx.config.mq.postBodyLimitBytes,
    // A large post's bodies come as their bytes, from the parse thread (api/body-bytes.ts).
    config: { bodyBytes: 'messageBodies' },
    schema: { params: queueParams, body, response: { 201: postedSchema } },
    handler: async (request, reply) => {
      const { messages } = request.body;
      const bytes = request.bodyBytes?.parts;
      const ids = await mq.post(
        queueRefOf(request),
        messages.map((message, i) => (bytes ? { ...toMessage(message, i), body: bytes[i]! } : toMessage(message, i))),
        queueQuotasOf(request, ctx.config.quotas),
      );
      return reply.code(201).send({ ids, msg: 'Messages put on queue.' });
    },
  });
}
