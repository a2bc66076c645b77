import type { FastifyPluginAsync } from 'fastify';
import { badRequest } from '../../src/core/errors.js';
import { pushHeadersFromWebhook } from '../../src/mq/push-headers.js';
import { queueParams, queueRefOf, type MqRouteOptions } from './params.js';

/**
 * Webhook: whatever a third-party sender posts becomes one message's body, unparsed, whatever
 * its content type; `X-Subscribers-<Name>` headers become the message's push headers.
 * The queue is created when it does not exist.
 */
export const webhookRoutes: FastifyPluginAsync<MqRouteOptions> = async (app, { mq }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post('/3/projects/:project_id/queues/:queue_name/webhook', {
    schema: {
      params: queueParams,
      response: { 201: { type: 'object', properties: { id: { type: 'string' }, ids: { type: 'array', items: { type: 'string' } }, msg: { type: 'string' } } } },
    },
    handler: async (request, reply) => {
      const body = typeof request.body === 'string' ? request.body : '';
      if (body === '') throw badRequest('body must not be empty: the webhook request body becomes the message body');
      const [id] = await mq.post(queueRefOf(request), [{ body, pushHeaders: pushHeadersFromWebhook(request.raw.rawHeaders) }]);
      return reply.code(201).send({ id, ids: [id], msg: 'Messages put on queue.' });
    },
  });
};
