import type { ApiPlugin } from '../type-provider.js';
import { MAX_PAGE } from '../../src/cache/item-rules.js';
import { fail } from '../../src/core/errors.js';
import { projectOf } from '../auth-hooks.js';
import type { CacheApiOptions } from './route-options.js';
import { cacheNameOf } from './paths.js';
import { cacheInfoSchema, cacheListSchema, cacheParams, msgSchema, projectParams } from './views.js';

const PREFIX = '/1/projects/:project_id/caches';

/** Caches as a whole: list, info, clear, delete. */
export const cacheRoutes: ApiPlugin<CacheApiOptions> = async (app, { store }) => {
  app.get(PREFIX, {
    schema: {
      params: projectParams,
      querystring: {
        type: 'object',
        properties: { page: { type: 'integer', minimum: 0, maximum: MAX_PAGE, default: 0 } },
      },
      response: { 200: cacheListSchema },
    },
    handler: async (request) => {
      const projectId = projectOf(request).id;
      const { page } = request.query;
      const names = await store.listCaches(projectId, page);
      return names.map((name) => ({ project_id: projectId, name }));
    },
  });

  app.get(`${PREFIX}/:cache_name`, {
    schema: { params: cacheParams, response: { 200: cacheInfoSchema } },
    handler: async (request) => {
      const name = cacheNameOf(request);
      const projectId = projectOf(request).id;
      // A cache exists from its first put or increment until it is deleted (cleared: size 0).
      const size = await store.size(projectId, name);
      if (size === null) throw fail('cache_not_found');
      return { project_id: projectId, name, size };
    },
  });

  app.delete(`${PREFIX}/:cache_name`, {
    schema: { params: cacheParams, response: { 200: msgSchema } },
    handler: async (request) => {
      if (!(await store.deleteCache(projectOf(request).id, cacheNameOf(request)))) throw fail('cache_not_found');
      return { msg: 'Deleted.' };
    },
  });

  app.post(`${PREFIX}/:cache_name/clear`, {
    schema: { params: cacheParams, response: { 200: msgSchema } },
    handler: async (request) => {
      if (!(await store.clear(projectOf(request).id, cacheNameOf(request)))) throw fail('cache_not_found');
      return { msg: 'Cleared.' };
    },
  });
};
