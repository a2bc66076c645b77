import type { ApiPlugin } from '../type-provider.js';
import { HttpError } from '../../src/core/errors.js';
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
      const { project_id: projectId } = request.query;
      try {
        const principal = await ctx.authenticator.authenticate(presentedToken(request));
        if (projectId !== undefined) await ctx.authenticator.authorizeProject(principal, projectId);
        return {};
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        return reply.code(403).send({ msg: error.message });
      }
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
