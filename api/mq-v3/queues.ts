import type { FromSchema } from 'json-schema-to-ts';
import type { ApiInstance, ApiPlugin, WithParams } from '../type-provider.js';
import { LIMITS } from '../../src/mq/limits.js';
import { parseQueueChanges, parseSubscribers, refuseLegacySubscribers } from '../../src/mq/queues/queue-settings.js';
import { projectOf } from '../auth-hooks.js';
import {
  msgSchema,
  projectParams,
  queueParams,
  queueQuotasOf,
  queueRefOf,
  type MqRouteOptions,
} from '../mq-shared/params.js';
import { deleteQueueRoute, subscriberRoutes, type SubscribersRequest } from '../mq-shared/queues.js';
import { queueResponseSchema, queueView } from './views.js';
import { ANY_BUT_NULL } from '../../src/core/null-fields.js';
import {
  QUEUE_SETTINGS_SCHEMA,
  SUBSCRIBER_SCHEMA,
  SUBSCRIBER_TO_REMOVE_SCHEMA,
} from '../../src/mq/queues/settings-schema.js';

// `subscribers` is read only to refuse it (refuseLegacySubscribers): it moved into queue.push.
const queueBody = {
  type: 'object',
  properties: { queue: QUEUE_SETTINGS_SCHEMA, subscribers: ANY_BUT_NULL },
} as const;

/** Queues: create, get, update, delete, list; subscribers of push queues. */
export const queueRoutes: ApiPlugin<MqRouteOptions> = async (app, options) => {
  queueSettingsRoutes(app, options);
  queueReadAndDeleteRoutes(app, options);
  queueSubscriberRoutes(app, options);
};

/** Create or replace (PUT) and update (PATCH) a queue's settings. */
function queueSettingsRoutes(app: ApiInstance, { ctx, mq }: MqRouteOptions): void {
  const limits = { minTimeoutSeconds: ctx.config.mq.minTimeoutSeconds };

  /** The queue a PUT or PATCH names and the changes its body asks for. */
  function changesOf(request: WithParams<{ queue_name: string }> & { body: FromSchema<typeof queueBody> }) {
    refuseLegacySubscribers(request.body);
    return { ref: queueRefOf(request), changes: parseQueueChanges(request.body.queue, limits) };
  }

  app.put('/3/projects/:project_id/queues/:queue_name', {
    schema: { params: queueParams, body: queueBody, response: { 200: queueResponseSchema } },
    handler: async (request) => {
      const { ref, changes } = changesOf(request);
      const settings = await mq.queues.configure(ref, changes, 'upsert', queueQuotasOf(request, ctx.config.quotas));
      return queueView(ref.projectId, ref.name, settings);
    },
  });

  app.patch('/3/projects/:project_id/queues/:queue_name', {
    schema: { params: queueParams, body: queueBody, response: { 200: queueResponseSchema } },
    handler: async (request) => {
      const { ref, changes } = changesOf(request);
      await mq.queues.configure(ref, changes, 'update', queueQuotasOf(request, ctx.config.quotas));
      const info = await mq.queues.require(ref);
      return queueView(ref.projectId, ref.name, info, info);
    },
  });
}

/** Get, delete and list queues. */
function queueReadAndDeleteRoutes(app: ApiInstance, options: MqRouteOptions): void {
  const { mq } = options;
  app.get('/3/projects/:project_id/queues/:queue_name', {
    schema: { params: queueParams, response: { 200: queueResponseSchema } },
    handler: async (request) => {
      const ref = queueRefOf(request);
      const info = await mq.queues.require(ref);
      return queueView(ref.projectId, ref.name, info, info);
    },
  });

  deleteQueueRoute(app, '/3/projects/:project_id/queues/:queue_name', options, 'Deleted');

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
}

/** Add, replace and remove a push queue's subscribers. */
function queueSubscriberRoutes(app: ApiInstance, { mq }: MqRouteOptions): void {
  subscriberRoutes(
    app,
    '/3/projects/:project_id/queues/:queue_name/subscribers',
    [
      ['post', 'add', SUBSCRIBER_SCHEMA],
      ['put', 'replace', SUBSCRIBER_SCHEMA],
      ['delete', 'remove', SUBSCRIBER_TO_REMOVE_SCHEMA],
    ],
    msgSchema,
    async (request: SubscribersRequest<FromSchema<typeof SUBSCRIBER_TO_REMOVE_SCHEMA>>, change) => {
      const subscribers = parseSubscribers(request.body.subscribers, 'subscribers');
      await mq.queues.changeSubscribers(queueRefOf(request), change, subscribers);
      return { msg: 'Updated' };
    },
  );
}
