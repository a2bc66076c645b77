import multipart from '@fastify/multipart';
import type { ApiPlugin } from '../type-provider.js';
import type { PluginOptions } from '../context.js';
import { clusterRoutes } from './clusters.js';
import { codeRoutes } from './codes.js';
import { credentialRoutes } from './credentials.js';
import { scheduleRoutes } from './schedules.js';
import { stackRoutes } from './stacks.js';
import { taskRoutes } from './tasks.js';
import { webhookRoutes } from './webhook.js';

/** The worker service, API version 2: each route group is given the one domain service its handlers call. */
export const workerV2Api: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  const { worker } = ctx;
  await app.register(multipart, {
    limits: { fileSize: ctx.config.worker.maxCodeBytes, files: 1, fields: 20, fieldSize: 1024 * 1024, parts: 32 },
  });
  await app.register(codeRoutes, { ctx, codes: worker.codeService });
  await app.register(taskRoutes, { ctx, tasks: worker.tasks });
  await app.register(scheduleRoutes, { ctx, schedules: worker.schedules });
  await app.register(webhookRoutes, { ctx, tasks: worker.tasks });
  await app.register(stackRoutes, { ctx });
  await app.register(credentialRoutes, { ctx, credentials: worker.credentials });
  await app.register(clusterRoutes, { ctx, clusters: worker.clusterService });
};
