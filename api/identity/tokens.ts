import type { ApiPlugin } from '../type-provider.js';
import { access } from '../../src/auth/access.js';
import { TOKEN_TYPES } from '../../src/auth/types.js';
import { forbidden, notFound } from '../../src/core/errors.js';
import { principalOf, requireToken } from '../auth-hooks.js';
import type { PluginOptions } from '../context.js';
import { msgSchema, tokenSchema, tokenView } from './views.js';

export const tokenRoutes: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  app.addHook('onRequest', requireToken(ctx));

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
      const principal = principalOf(request);
      const body = request.body;
      const owner = await ctx.identity.users.findUser(body.user_id ?? principal.userId);
      if (!owner) throw notFound('User not found');
      if (!access.seeUser(principal, owner)) throw forbidden('Only admin tokens may create tokens for other users');
      if (body.admin && !principal.admin) throw forbidden('Only admin tokens may create admin tokens');
      const cap = ctx.config.tenantLimits.tokensPerUser;
      if (!principal.admin && (await ctx.identity.tokens.countTokens(owner.id)) >= cap)
        throw forbidden(`you have ${cap} tokens, the most a user may (FERRUM_MAX_TOKENS_PER_USER): delete one first`);
      const token = await ctx.identity.tokens.createToken({
        userId: owner.id,
        name: body.name ?? '',
        type: body.type ?? 'standard',
        admin: body.admin ?? false,
      });
      return reply.code(201).send(tokenView(token));
    },
  });

  app.get('/1/tokens', {
    schema: {
      querystring: { type: 'object', properties: { user_id: { type: 'string' } } },
      response: { 200: { type: 'object', properties: { tokens: { type: 'array', items: tokenSchema } } } },
    },
    handler: async (request) => {
      const principal = principalOf(request);
      const { user_id: userId = principal.userId } = request.query;
      const owner = await ctx.identity.users.findUser(userId);
      if (!owner) throw notFound('User not found');
      if (!access.seeUser(principal, owner)) throw forbidden("Only admin tokens may list other users' tokens");
      return { tokens: (await ctx.identity.tokens.listTokens(owner.id)).map(tokenView) };
    },
  });

  app.delete('/1/tokens/:token_id', {
    schema: {
      params: { type: 'object', required: ['token_id'], properties: { token_id: { type: 'string' } } },
      response: { 200: msgSchema },
    },
    handler: async (request) => {
      const principal = principalOf(request);
      const { token_id: tokenId } = request.params;
      const token = await ctx.identity.tokens.getToken(tokenId);
      if (!token) throw notFound('Token not found');
      if (!principal.admin && token.userId !== principal.userId) throw forbidden('This token belongs to another user');
      await ctx.identity.tokens.deleteToken(token);
      await ctx.authenticator.tokensRevoked([token.secretHash]);
      return { msg: 'Deleted' };
    },
  });
};
