import type { FastifyPluginAsync } from 'fastify';
import { verifyPassword } from '../../src/auth/password.js';
import { HttpError, unauthorized } from '../../src/core/errors.js';
import { presentedToken } from '../auth-hooks.js';
import type { PluginOptions } from '../context.js';
import { userSchema, userView } from './views.js';

export const authenticationRoutes: FastifyPluginAsync<PluginOptions> = async (app, { ctx }) => {
  // Token check used by other services: 200 {} when accepted, 403 {msg} otherwise.
  app.get('/1/authentication', {
    schema: {
      querystring: { type: 'object', properties: { project_id: { type: 'string' }, oauth: { type: 'string' } } },
    },
    handler: async (request, reply) => {
      const { project_id: projectId } = request.query as { project_id?: string };
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
      const { email, password } = request.body as { email: string; password: string };
      const user = await ctx.identity.findUser(email);
      const valid = user !== null && (await verifyPassword(password, user.passwordHash));
      if (!user || !valid) throw unauthorized('Invalid e-mail or password');
      let tokens = await ctx.identity.listTokens(user.id);
      if (tokens.length === 0) {
        const token = await ctx.identity.createToken({
          userId: user.id,
          name: 'dashboard',
          type: 'standard',
          admin: user.admin,
        });
        tokens = [token];
      }
      return userView(
        user,
        tokens.map((token) => token.secret),
      );
    },
  });
};
