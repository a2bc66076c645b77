import type { ApiPlugin } from '../type-provider.js';
import { presentedToken } from '../auth-hooks.js';
import type { PluginOptions } from '../context.js';
import { userSchema, userView } from './views.js';

export const authenticationRoutes: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  // Token check used by other services: 200 {} when accepted, 403 {msg} otherwise.
  app.get('/1/authentication', {
    schema: {
      querystring: { type: 'object', properties: { project_id: { type: 'string' }, oauth: { type: 'string' } } },
    },
    handler: async (request, reply) => {
      const refusal = await ctx.authenticator.refusalOf(() => presentedToken(request), request.query.project_id);
      return refusal === null ? {} : reply.code(403).send({ msg: refusal });
    },
  });

  // Dashboard sign-in: e-mail and password give the user, with a token to use.
  app.post('/1/authentication', {
    schema: {
      body: {
        type: 'object',
        required: ['email', 'password'],
        properties: { email: { type: 'string' }, password: { type: 'string' } },
      },
      response: { 200: userSchema },
    },
    handler: async (request) => {
      const { email, password } = request.body;
      const { user, token } = await ctx.accounts.signIn.signIn(email, password, request.ip);
      return userView(user, [token.secret]);
    },
  });
};
