import type { FastifyPluginAsync } from 'fastify';
import { CacheStore } from '../../src/cache/cache-store.js';
import { requireProject } from '../auth-hooks.js';
import type { PluginOptions } from '../context.js';
import { cacheRoutes } from './caches.js';
import { itemRoutes } from './items.js';

export interface CacheApiOptions {
  store: CacheStore;
  maxValueBytes: number;
}

/** The cache service, API version 1 (tokens of every generation are accepted). */
export const cacheApi: FastifyPluginAsync<PluginOptions> = async (app, { ctx }) => {
  const options: CacheApiOptions = {
    store: new CacheStore(ctx.redis, ctx.keys),
    maxValueBytes: ctx.config.cache.maxValueBytes,
  };
  app.addHook('onRequest', requireProject(ctx));
  await app.register(cacheRoutes, options);
  await app.register(itemRoutes, options);
};
