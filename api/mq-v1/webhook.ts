import type { FastifyPluginAsync } from 'fastify';
import { badRequest } from '../../src/core/errors.js';
import { pushHeadersFromWebhook } from '../../src/mq/push-headers.js';
import { queueParams, queueRefOf, type MqRouteOptions } from '../mq-v3/params.js';

/** Version 1 webhook (`/messages/webhook`): the raw request body becomes one message; the queue is created when missing. */
export const webhookRoutes: FastifyPluginAsync<MqRouteOptions> = async (app, { mq }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post('/1/projects/:project_id/queues/:queue_name/messages/webhook', {
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
