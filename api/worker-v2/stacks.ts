import type { ApiPlugin } from '../type-provider.js';
import { requireToken } from '../auth-hooks.js';
import type { PluginOptions } from '../context.js';

/** GET /2/stacks: the stack names zip packages may use (each runs in a configured image). */
export const stackRoutes: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  app.addHook('onRequest', requireToken(ctx));
  app.get('/2/stacks', {
    schema: { response: { 200: { type: 'array', items: { type: 'string' } } } },
    handler: async () => Object.keys(ctx.config.worker.stacks).sort(),
  });
};
