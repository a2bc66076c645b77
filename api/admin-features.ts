import type { FastifyRequest } from 'fastify';
import { fail } from '../src/core/errors.js';
import { principalOf, requireToken } from './auth-hooks.js';
import type { PluginOptions } from './context.js';
import type { ApiPlugin } from './type-provider.js';

const processSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, kind: { type: 'string' }, version: { type: 'string' } },
} as const;
const listingSchema = {
  type: 'object',
  properties: {
    features: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          description: { type: 'string' },
          introduced_in: { type: 'string' },
          enabled: { type: 'boolean' },
          unsupported_by: { type: 'array', items: processSchema },
        },
      },
    },
    unknown_enabled: { type: 'array', items: { type: 'string' } },
    processes: {
      type: 'array',
      items: {
        ...processSchema,
        properties: { ...processSchema.properties, features: { type: 'array', items: { type: 'string' } } },
      },
    },
  },
} as const;

/** Only operators (admin tokens) see and enable the storage flags. */
function requireAdmin(request: FastifyRequest): void {
  if (!principalOf(request).admin) throw fail('features_admin_only');
}

/**
 * The storage feature flags for operators (src/core/features): the list, with the live
 * processes and what each supports, and enabling one (`all`: every known one), refused with 409
 * while a live process does not support it.
 */
export const adminFeaturesApi: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  app.addHook('onRequest', requireToken(ctx));
  app.addHook('onRequest', async (request) => requireAdmin(request));

  app.get('/1/admin/features', {
    schema: { response: { 200: listingSchema } },
    handler: async () => ctx.featureAdmin.list(),
  });

  app.post('/1/admin/features/:name/enable', {
    schema: {
      params: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', minLength: 1, maxLength: 64 } },
      },
      response: { 200: { type: 'object', properties: { enabled: { type: 'array', items: { type: 'string' } } } } },
    },
    handler: async (request) => ctx.featureAdmin.enable(request.params.name),
  });
};
