import type { ApiPlugin } from '../type-provider.js';
import { pushHeadersFromWebhook } from '../../src/mq/messages/push-headers.js';
import { queueParams, queueQuotasOf, queueRefOf, type MqRouteOptions } from './params.js';

export interface WebhookOptions extends MqRouteOptions {
  /** The route: v3 `/3/…/queues/:queue_name/webhook`, v1 `/1/…/queues/:queue_name/messages/webhook`. */
  path: string;
}

/**
 * Webhook: whatever a third-party sender posts becomes one message's body, unparsed, whatever
 * its content type (an empty body included); `X-Subscribers-<Name>` headers become the message's push headers.
 * The queue is created when it does not exist. Both API versions register it at their path.
 */
export const webhookRoutes: ApiPlugin<WebhookOptions> = async (app, { ctx, mq, path }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post(path, {
    bodyLimit: ctx.config.mq.postBodyLimitBytes,
    schema: {
      params: queueParams,
      response: {
        201: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            ids: { type: 'array', items: { type: 'string' } },
            msg: { type: 'string' },
          },
        },
      },
    },
    handler: async (request, reply) => {
      // An empty request body is an empty message body, as on every other post.
      const body = typeof request.body === 'string' ? request.body : '';
      const [id] = await mq.post(
        queueRefOf(request),
        [{ body, pushHeaders: pushHeadersFromWebhook(request.raw.rawHeaders) }],
        queueQuotasOf(request, ctx.config.quotas),
      );
      return reply.code(201).send({ id, ids: [id], msg: 'Messages put on queue.' });
    },
  });
};
