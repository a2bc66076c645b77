/** The queue routes both API versions share: delete a queue, change a push queue's subscribers. */
import type { JSONSchema } from 'json-schema-to-ts';
import { fail } from '../../src/core/errors.js';
import type { SubscriberChange } from '../../src/mq/queues/queue-store.js';
import type { ApiInstance, WithParams } from '../type-provider.js';
import { subscribersBodyOf } from '../../src/mq/queues/settings-schema.js';
import { msgSchema, queueParams, queueRefOf, type MqRouteOptions } from './params.js';

/** `DELETE <path>`: deletes the queue and its messages (404 when there was none) and answers `msg`. */
export function deleteQueueRoute(app: ApiInstance, path: string, { mq }: MqRouteOptions, msg: string): void {
  app.delete(path, {
    schema: { params: queueParams, response: { 200: msgSchema } },
    handler: async (request) => {
      if (!(await mq.queues.delete(queueRefOf(request)))) throw fail('mq_queue_not_found');
      return { msg };
    },
  });
}

export type SubscribersRequest<Subscriber> = WithParams<{ queue_name: string }> & {
  body: { subscribers: Subscriber[] };
};

/**
 * The subscriber routes at `path`, one method per change, each with the schema of a subscriber
 * it takes (`Subscriber`: what the loosest of them admits); `change` makes it and gives the answer.
 */
export function subscriberRoutes<Subscriber>(
  app: ApiInstance,
  path: string,
  methods: Array<['post' | 'put' | 'delete', SubscriberChange, JSONSchema]>,
  answer: JSONSchema,
  change: (request: SubscribersRequest<Subscriber>, change: SubscriberChange) => Promise<unknown>,
): void {
  for (const [method, kind, subscriber] of methods) {
    app[method](path, {
      schema: { params: queueParams, body: subscribersBodyOf(subscriber as object), response: { 200: answer } },
      handler: (request) => change(request as unknown as SubscribersRequest<Subscriber>, kind),
    });
  }
}
