import type { ApiPlugin } from '../type-provider.js';
import { TOKEN_TYPES } from '../../src/auth/types.js';
import { principalOf, requireToken } from '../auth-hooks.js';
import type { PluginOptions } from '../context.js';
import { msgSchema, tokenSchema, tokenView } from './views.js';

export const tokenRoutes: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  app.addHook('onRequest', requireToken(ctx));
  const tokens = ctx.accounts.tokens;

  app.post('/1/tokens', {
    schema: {
      body: {
        type: 'object',
        properties: {
          name: { type: 'string', maxLength: 200 },
          type: { type: 'string', enum: [...TOKEN_TYPES] },
          admin: { type: 'boolean' },
          user_id: { type: 'string' },
        },
      },
      response: { 201: tokenSchema },
    },
    handler: async (request, reply) => {
      const { name, type, admin, user_id: userId } = request.body;
      const token = await tokens.create(principalOf(request), { name, type, admin, userId });
      return reply.code(201).send(tokenView(token));
    },
  });

  app.get('/1/tokens', {
    schema: {
      querystring: { type: 'object', properties: { user_id: { type: 'string' } } },
      response: { 200: { type: 'object', properties: { tokens: { type: 'array', items: tokenSchema } } } },
    },
    handler: async (request) => ({
      tokens: (await tokens.list(principalOf(request), request.query.user_id)).map(tokenView),
    }),
  });

  app.delete('/1/tokens/:token_id', {
    schema: {
      params: { type: 'object', required: ['token_id'], properties: { token_id: { type: 'string' } } },
      response: { 200: msgSchema },
    },
    handler: async (request) => {
      await tokens.delete(principalOf(request), request.params.token_id);
      return { msg: 'Deleted' };
    },
  });
};
