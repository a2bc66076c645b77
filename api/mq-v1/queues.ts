import type { FromSchema } from 'json-schema-to-ts';
import type { ApiInstance, ApiPlugin, WithParams } from '../type-provider.js';
import { LIMITS } from '../../src/mq/limits.js';
import {
  parseV1QueueUpdate,
  parseV1SubscriberUrls,
  subscribersForUrls,
  V1_UPDATE_SCHEMA,
} from '../../src/mq/queues/v1-queue-update.js';
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
import { V1_SUBSCRIBER_SCHEMA } from '../../src/mq/queues/settings-schema.js';
import { queueIdOf, queueListSchema, queueSchema, queueView } from './views.js';
import type { Subscriber } from '../../src/mq/types.js';

const pageSchema = { type: 'integer', minimum: 0, maximum: LIMITS.maxPerPage } as const;
const updateBody = V1_UPDATE_SCHEMA;

/** Queues: list (page / per_page), info, update (push settings, back to pull), delete, clear, subscribers. */
export const queueRoutes: ApiPlugin<MqRouteOptions> = async (app, options) => {
  const answerQueue = queueAnswer(options);
  queueReadRoutes(app, options, answerQueue);
  queueWriteRoutes(app, options, answerQueue);
  queueSubscriberRoutes(app, options, answerQueue);
};

type QueueAnswer = (request: WithParams<{ queue_name: string }>) => Promise<ReturnType<typeof queueView>>;

/** The queue's info, as every route that changes a queue answers. */
function queueAnswer({ mq }: MqRouteOptions): QueueAnswer {
  return async (request) => queueView(await mq.queues.require(queueRefOf(request)));
}

/** List (page / per_page) and info. */
function queueReadRoutes(app: ApiInstance, { mq }: MqRouteOptions, answerQueue: QueueAnswer): void {
  app.get('/1/projects/:project_id/queues', {
    schema: {
      params: projectParams,
      querystring: {
        type: 'object',
        properties: { page: pageSchema, per_page: { type: 'integer', minimum: 1 } },
      },
      response: { 200: queueListSchema },
    },
    handler: async (request) => {
      const { page = 0, per_page: perPage = LIMITS.defaultPerPage } = request.query;
      const projectId = projectOf(request).id;
      const size = Math.min(perPage, LIMITS.maxPerPage);
      const names = await mq.queues.listPage(projectId, page * size, size);
      return names.map((name) => ({ id: queueIdOf({ projectId, name }), project_id: projectId, name }));
    },
  });

  app.get('/1/projects/:project_id/queues/:queue_name', {
    schema: { params: queueParams, response: { 200: queueSchema } },
    handler: answerQueue,
  });
}

/** Update (push settings, back to pull), delete, clear. */
function queueWriteRoutes(app: ApiInstance, options: MqRouteOptions, answerQueue: QueueAnswer): void {
  const { ctx, mq } = options;
  app.post('/1/projects/:project_id/queues/:queue_name', {
    // Room for a subscribers list of the documented 64 KB, so that one over it gets a clear 400.
    bodyLimit: 128 * 1024,
    schema: { params: queueParams, body: updateBody, response: { 200: queueSchema } },
    handler: async (request) => {
      await mq.queues.updateV1(
        queueRefOf(request),
        parseV1QueueUpdate(request.body),
        queueQuotasOf(request, ctx.config.quotas),
      );
      return answerQueue(request);
    },
  });

  deleteQueueRoute(app, '/1/projects/:project_id/queues/:queue_name', options, 'Deleted.');

  app.post('/1/projects/:project_id/queues/:queue_name/clear', {
    schema: { params: queueParams, response: { 200: msgSchema } },
    handler: async (request) => {
      await mq.clear(queueRefOf(request));
      return { msg: 'Cleared' };
    },
  });
}

/** Add and remove push subscribers by URL. */
function queueSubscriberRoutes(app: ApiInstance, { mq }: MqRouteOptions, answerQueue: QueueAnswer): void {
  subscriberRoutes(
    app,
    '/1/projects/:project_id/queues/:queue_name/subscribers',
    [
      ['post', 'add', V1_SUBSCRIBER_SCHEMA],
      ['delete', 'remove', V1_SUBSCRIBER_SCHEMA],
    ],
    queueSchema,
    async (request: SubscribersRequest<FromSchema<typeof V1_SUBSCRIBER_SCHEMA>>, change) => {
      const urls = parseV1SubscriberUrls(request.body.subscribers);
      const subscribers = (current: Subscriber[]) => subscribersForUrls(current, urls);
      await mq.queues.changeSubscribers(queueRefOf(request), change, subscribers, true);
      return answerQueue(request);
    },
  );
}
