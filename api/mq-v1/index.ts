import type { ApiPlugin } from '../type-provider.js';
import { requireProject } from '../auth-hooks.js';
import type { PluginOptions } from '../context.js';
import { alertRoutes } from './alerts.js';
import { messageRoutes } from './messages.js';
import { queueRoutes } from './queues.js';
import { webhookRoutes } from '../mq-shared/webhook.js';

/**
 * The version 1 message queue API under /1/projects/:project_id/queues, on the same queues as
 * version 3. Version 1 accepts earlier-generation tokens and `?oauth=`.
 */
export const mqV1Api: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  const { mq } = ctx;
  app.addHook('onRequest', requireProject(ctx, { allowTaskTokens: true }));
  await app.register(queueRoutes, { ctx, mq });
  await app.register(messageRoutes, { ctx, mq });
  await app.register(alertRoutes, { ctx, mq });
  await app.register(webhookRoutes, { ctx, mq, path: '/1/projects/:project_id/queues/:queue_name/messages/webhook' });
};
