import type { FastifyRequest } from 'fastify';
import type { ApiInstance, ApiPlugin } from '../type-provider.js';
import { quotasOf } from '../../src/auth/quotas.js';
import type { CacheQuotas } from '../../src/cache/cache-store.js';
import { MAX_EXPIRES_IN_SECONDS, MAX_FLAGS } from '../../src/cache/item-rules.js';
import { fail } from '../../src/core/errors.js';
import { projectOf } from '../auth-hooks.js';
import type { CacheApiOptions } from './route-options.js';
import { itemPathOf } from './paths.js';
import { JSON_CONTENT_TYPE } from '../json-content-type.js';
import { incrementJson, itemJson, itemParams, msgSchema } from './views.js';
import { ANY_BUT_NULL } from '../../src/core/null-fields.js';

const ITEMS = '/1/projects/:project_id/caches/:cache_name/items';
const ITEM = `${ITEMS}/:key`;

const putBody = {
  type: 'object',
  required: ['value'],
  properties: {
    value: ANY_BUT_NULL, // any JSON value; null is no value (406 value is required)
    expires_in: { type: 'integer', minimum: 0, maximum: MAX_EXPIRES_IN_SECONDS },
    add: { type: 'boolean' },
    replace: { type: 'boolean' },
    cas: ANY_BUT_NULL, // a number or a string of digits: checked by putCondition
    // Memcached flags, stored with the item and returned by get (the hosted service's item meta).
    flags: { type: 'integer', minimum: 0, maximum: MAX_FLAGS },
  },
} as const;

const KEPT_MESSAGES = {
  add: 'Not stored: add keeps the item already under this key.',
  replace: 'Not stored: replace stores only keys that are in the cache.',
};

const incrementBody = {
  type: 'object',
  required: ['amount'],
  properties: { amount: { type: 'integer' } },
} as const;

/** Items of a cache: put, get, increment, delete. */
export const itemRoutes: ApiPlugin<CacheApiOptions> = async (app, options) => {
  itemWriteRoutes(app, options);
  itemReadAndDeleteRoutes(app, options);
};

/** Put and increment: the writes that count against the project's quotas. */
function itemWriteRoutes(app: ApiInstance, { store, maxValueBytes, quotas }: CacheApiOptions): void {
  const quotasFor = (request: FastifyRequest): CacheQuotas => {
    const project = quotasOf(projectOf(request), quotas);
    return { storedBytes: project.stored_bytes, caches: project.caches };
  };

  app.put(ITEM, {
    // A value may be up to maxValueBytes: the body around it gets room beyond that.
    bodyLimit: maxValueBytes + 64 * 1024,
    // A large value comes as the bytes it is stored as, from the parse thread (api/body-bytes.ts).
    config: { bodyBytes: 'cacheValue' },
    schema: { params: itemParams, body: putBody, response: { 200: msgSchema } },
    handler: async (request) => {
      const { cacheName, key } = itemPathOf(request);
      const { value, expires_in: expiresIn = 0, add, replace, cas, flags } = request.body;
      const limits = { ...quotasFor(request), maxValueBytes };
      const encoded = request.bodyBytes && { json: request.bodyBytes.parts[0]!, size: request.bodyBytes.size };
      const put = { value, encoded, expiresIn, add, replace, cas, flags };
      const result = await store.putValue(projectOf(request).id, cacheName, key, put, limits);
      // A kept item is a success: the clients treat any other answer as a failure of the put.
      if (!result.stored) return { msg: KEPT_MESSAGES[add ? 'add' : 'replace'] };
      return { msg: 'Stored.' };
    },
  });

  app.post(`${ITEM}/increment`, {
    schema: { params: itemParams, body: incrementBody },
    handler: async (request, reply) => {
      const { cacheName, key } = itemPathOf(request);
      const { amount } = request.body;
      const value = await store.increment(projectOf(request).id, cacheName, key, amount, quotasFor(request));
      return reply.type(JSON_CONTENT_TYPE).send(incrementJson(value));
    },
  });
}

/** Get and delete, and the answer to a path without a key. */
function itemReadAndDeleteRoutes(app: ApiInstance, { store }: CacheApiOptions): void {
  app.get(ITEM, {
    schema: { params: itemParams },
    handler: async (request, reply) => {
      const { cacheName, key } = itemPathOf(request);
      const item = await store.get(projectOf(request).id, cacheName, key);
      if (!item) throw fail('item_not_found');
      return reply.type(JSON_CONTENT_TYPE).send(itemJson(cacheName, key, item));
    },
  });

  // The router matches no empty path parameter: `/items/` would otherwise answer as if the
  // method were wrong rather than the key missing.
  app.route({
    method: ['GET', 'PUT', 'DELETE'],
    url: ITEMS,
    handler: async () => {
      throw fail('item_key_missing_in_path');
    },
  });

  app.delete(ITEM, {
    schema: { params: itemParams, response: { 200: msgSchema } },
    handler: async (request) => {
      const { cacheName, key } = itemPathOf(request);
      if (!(await store.deleteItem(projectOf(request).id, cacheName, key))) throw fail('item_not_found');
      return { msg: 'Deleted.' };
    },
  });
}
