import type { ApiPlugin } from '../type-provider.js';
import { requireProject } from '../auth-hooks.js';
import type { PluginOptions } from '../context.js';
import { messageRoutes } from './messages.js';
import { queueRoutes } from './queues.js';
import { webhookRoutes } from '../mq-shared/webhook.js';

/** The version 3 message queue API under /3/projects/:project_id/queues. */
export const mqV3Api: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  const { mq } = ctx;
  app.addHook('onRequest', requireProject(ctx, { refuseLegacyTokens: true, allowTaskTokens: true }));
  // Long-polls would hold the server open for up to 30 s: answer them before it closes.
  app.addHook('preClose', async () => mq.close());
  await app.register(queueRoutes, { ctx, mq });
  await app.register(messageRoutes, { ctx, mq });
  await app.register(webhookRoutes, { ctx, mq, path: '/3/projects/:project_id/queues/:queue_name/webhook' });
};
