import type { ApiPlugin } from '../type-provider.js';
import { requireProject } from '../auth-hooks.js';
import type { PluginOptions } from '../context.js';
import { cacheRoutes } from './caches.js';
import { itemRoutes } from './items.js';
import type { CacheApiOptions } from './route-options.js';

/** The cache service, API version 1 (tokens of every generation are accepted). */
export const cacheApi: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  const options: CacheApiOptions = {
    store: ctx.cache,
    maxValueBytes: ctx.config.cache.maxValueBytes,
    quotas: ctx.config.quotas,
  };
  app.addHook('onRequest', requireProject(ctx, { allowTaskTokens: true }));
  await app.register(cacheRoutes, options);
  await app.register(itemRoutes, options);
};
