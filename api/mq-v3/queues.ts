import type { ApiPlugin } from '../type-provider.js';
import { fail } from '../../src/core/errors.js';
import { LIMITS } from '../../src/mq/limits.js';
import { parseQueueChanges, parseSubscribers, refuseLegacySubscribers } from '../../src/mq/queues/queue-settings.js';
import type { SubscriberChange } from '../../src/mq/queues/queue-store.js';
import { projectOf } from '../auth-hooks.js';
import {
  msgSchema,
  projectParams,
  queueParams,
  queueQuotasOf,
  queueRefOf,
  subscribersBody,
  type MqRouteOptions,
} from '../mq-shared/params.js';
import { queueResponseSchema, queueView } from './views.js';
import { ANY_BUT_NULL } from '../../src/core/null-fields.js';

const queueBody = { type: 'object', properties: { queue: ANY_BUT_NULL, subscribers: ANY_BUT_NULL } } as const;

/** Queues: create, get, update, delete, list; subscribers of push queues. */
export const queueRoutes: ApiPlugin<MqRouteOptions> = async (app, { ctx, mq }) => {
  const limits = { minTimeoutSeconds: ctx.config.mq.minTimeoutSeconds };

  app.put('/3/projects/:project_id/queues/:queue_name', {
    schema: { params: queueParams, body: queueBody, response: { 200: queueResponseSchema } },
    handler: async (request) => {
      const ref = queueRefOf(request);
      refuseLegacySubscribers(request.body);
      const changes = parseQueueChanges(request.body.queue, limits);
      const settings = await mq.queues.configure(ref, changes, 'upsert', queueQuotasOf(request, ctx.config.quotas));
      return queueView(ref.projectId, ref.name, settings);
    },
  });

  app.patch('/3/projects/:project_id/queues/:queue_name', {
    schema: { params: queueParams, body: queueBody, response: { 200: queueResponseSchema } },
    handler: async (request) => {
      const ref = queueRefOf(request);
      refuseLegacySubscribers(request.body);
      const changes = parseQueueChanges(request.body.queue, limits);
      await mq.queues.configure(ref, changes, 'update', queueQuotasOf(request, ctx.config.quotas));
      const info = await mq.queues.require(ref);
      return queueView(ref.projectId, ref.name, info, info);
    },
  });

  app.get('/3/projects/:project_id/queues/:queue_name', {
    schema: { params: queueParams, response: { 200: queueResponseSchema } },
    handler: async (request) => {
      const ref = queueRefOf(request);
      const info = await mq.queues.require(ref);
      return queueView(ref.projectId, ref.name, info, info);
    },
  });

  app.delete('/3/projects/:project_id/queues/:queue_name', {
    schema: { params: queueParams, response: { 200: msgSchema } },
    handler: async (request) => {
      if (!(await mq.queues.delete(queueRefOf(request)))) throw fail('mq_queue_not_found');
      return { msg: 'Deleted' };
    },
  });

  app.get('/3/projects/:project_id/queues', {
    schema: {
      params: projectParams,
      querystring: {
        type: 'object',
        properties: {
          per_page: { type: 'integer', minimum: 1 },
          previous: { type: 'string' },
          prefix: { type: 'string' },
        },
      },
      response: {
        200: {
          type: 'object',
          properties: {
            queues: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
          },
        },
      },
    },
    handler: async (request) => {
      const query = request.query;
      const names = await mq.queues.list(projectOf(request).id, {
        perPage: Math.min(query.per_page ?? LIMITS.defaultPerPage, LIMITS.maxPerPage),
        previous: query.previous,
        prefix: query.prefix,
      });
      return { queues: names.map((name) => ({ name })) };
    },
  });

  const subscriberChanges: Array<['post' | 'put' | 'delete', SubscriberChange]> = [
    ['post', 'add'],
    ['put', 'replace'],
    ['delete', 'remove'],
  ];
  for (const [method, change] of subscriberChanges) {
    app[method]('/3/projects/:project_id/queues/:queue_name/subscribers', {
      schema: { params: queueParams, body: subscribersBody, response: { 200: msgSchema } },
      handler: async (request) => {
        const given = request.body.subscribers;
        const subscribers = parseSubscribers(given, 'subscribers', { urlRequired: change !== 'remove' });
        await mq.queues.changeSubscribers(queueRefOf(request), change, subscribers);
        return { msg: 'Updated' };
      },
    });
  }
};
