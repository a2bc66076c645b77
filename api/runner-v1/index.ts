import type { ApiPlugin } from '../type-provider.js';
import type { PluginOptions } from '../context.js';
import { instanceRoutes } from './instances.js';
import { nextTaskRoute } from './next-task.js';
import { requireRunnerToken } from './runner-auth.js';
import { taskFileRoutes } from './task-files.js';
import { taskRunRoutes } from './task-runs.js';

/**
 * The runner API: what a gateway runner (one that cannot reach Redis) needs, authorized by a
 * cluster runner token. The controller takes BullMQ jobs for the runner (with the BullMQ Workers
 * the composition root built, ctx.heldTasks) and keeps their locks while the runner
 * heartbeats; every task change runs the scripts direct runners run.
 */
export const runnerV1Api: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  const { worker, config } = ctx;
  app.decorateRequest('runnerGrant', null);
  app.addHook('onRequest', requireRunnerToken(worker.runnerTokens));
  // A log chunk's limit is its route's (task-runs.ts), which the large-body gate reads too.
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_request, body, done) =>
    done(null, body),
  );
  const deps = { config, worker, tasks: ctx.heldTasks, session: ctx.gatewaySession };
  instanceRoutes(app, deps);
  nextTaskRoute(app, deps);
  taskFileRoutes(app, deps);
  taskRunRoutes(app, deps);
};
