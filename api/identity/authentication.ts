import type { ApiPlugin } from '../type-provider.js';
import { forbidden, HttpError, unauthorized } from '../../src/core/errors.js';
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
      await ctx.loginGuard.attempt(email, request.ip);
      const user = await ctx.identity.users.findUserByEmail(email);
      // The password hash runs whether the account exists or not, so both answers take as long.
      if (!(await ctx.loginGuard.passwordMatches(password, user?.passwordHash)) || !user) {
        throw unauthorized('Invalid e-mail or password');
      }
      if (user.status === 'suspended') throw forbidden('User suspended');
      await ctx.loginGuard.succeeded(email, request.ip);
      // Stored tokens are hashes: each sign-in gets a session token of its own, shown this once.
      const { token, revoked } = await ctx.identity.tokens.createSignInToken(user);
      await ctx.authenticator.tokensRevoked(revoked);
      return userView(user, [token.secret]);
    },
  });
};
