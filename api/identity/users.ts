import type { ApiPlugin, WithParams } from '../type-provider.js';
import { access } from '../../src/auth/access.js';
import type { User } from '../../src/auth/types.js';
import { USER_STATUSES } from '../../src/auth/types.js';
import { checkEmail, checkPassword } from '../../src/auth/validation.js';
import { forbidden, notFound } from '../../src/core/errors.js';
import { principalOf, requireToken } from '../auth-hooks.js';
import type { PluginOptions } from '../context.js';
import { msgSchema, userSchema, userView } from './views.js';

const userParams = {
  type: 'object',
  required: ['user_id_or_email'],
  properties: { user_id_or_email: { type: 'string' } },
} as const;

export const userRoutes: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  app.addHook('onRequest', requireToken(ctx));

  /** The user named in the path, when the caller may see it (a stranger gets 404, not a hint). */
  async function visibleUser(request: WithParams<{ user_id_or_email: string }>): Promise<User> {
    const { user_id_or_email: idOrEmail } = request.params;
    const principal = principalOf(request);
    const user = await ctx.identity.users.findUser(idOrEmail);
    // Another user's account answers as if it did not exist, so e-mails cannot be probed.
    if (!user || !access.seeUser(principal, user)) throw notFound('User not found');
    return user;
  }

  /** The shares made to a user's e-mail address before anyone had it. */
  async function acceptInvitations(user: User): Promise<void> {
    await ctx.identity.projects.acceptInvitations(user);
    await ctx.worker.clusters.acceptInvitations(user.email.trim().toLowerCase(), user.id);
  }

  app.post('/1/users', {
    schema: {
      body: {
        type: 'object',
        required: ['email', 'password'],
        properties: { email: { type: 'string' }, password: { type: 'string' }, admin: { type: 'boolean' } },
      },
      response: { 201: userSchema },
    },
    handler: async (request, reply) => {
      if (!access.manageUsers(principalOf(request))) throw forbidden('Only admin tokens may create users');
      const { email, password, admin } = request.body;
      checkEmail(email);
      checkPassword(password);
      const user = await ctx.identity.users.createUser({ email, password, admin });
      await acceptInvitations(user);
      return reply.code(201).send(userView(user, []));
    },
  });

  app.get('/1/users', {
    schema: {
      querystring: {
        type: 'object',
        properties: {
          previous: { type: 'string' },
          per_page: { type: 'integer', minimum: 1 },
        },
      },
      response: { 200: { type: 'object', properties: { users: { type: 'array', items: userSchema } } } },
    },
    handler: async (request) => {
      if (!access.manageUsers(principalOf(request))) throw forbidden('Only admin tokens may list users');
      const { previous, per_page: perPage = 30 } = request.query;
      const users = await ctx.identity.users.listUsers(previous || undefined, Math.min(perPage, 100));
      return { users: users.map((user) => userView(user)) };
    },
  });

  app.get('/1/users/:user_id_or_email', {
    schema: { params: userParams, response: { 200: userSchema } },
    handler: async (request) => userView(await visibleUser(request)),
  });

  app.patch('/1/users/:user_id_or_email', {
    schema: {
      params: userParams,
      body: {
        type: 'object',
        properties: {
          email: { type: 'string' },
          password: { type: 'string' },
          status: { type: 'string', enum: [...USER_STATUSES] },
        },
      },
      response: { 200: userSchema },
    },
    handler: async (request) => {
      const user = await visibleUser(request);
      const changes = request.body;
      if (changes.email !== undefined) checkEmail(changes.email);
      // A taken address answers 409: only admins (who see every user anyway) may try one.
      if (changes.email !== undefined && !principalOf(request).admin)
        throw forbidden('Only admin tokens may change an e-mail address');
      if (changes.password !== undefined) checkPassword(changes.password);
      if (changes.status !== undefined && !principalOf(request).admin) {
        throw forbidden('Only admin tokens may change a user status');
      }
      const updated = await ctx.identity.users.updateUser(user, changes);
      if (changes.email !== undefined) await acceptInvitations(updated);
      if (changes.status !== undefined && changes.status !== user.status) {
        for (const project of await ctx.identity.projects.listProjectsOf(user.id)) {
          if (project.userId !== user.id) continue;
          await ctx.lifecycle.setSuspended(
            project.id,
            changes.status === 'suspended' || project.status === 'suspended',
          );
        }
      }
      if (changes.status === 'suspended') {
        const tokens = await ctx.identity.tokens.listTokens(user.id);
        await ctx.authenticator.tokensRevoked(tokens.map((token) => token.secretHash));
      }
      return userView(updated);
    },
  });

  app.delete('/1/users/:user_id_or_email', {
    schema: { params: userParams, response: { 200: msgSchema } },
    handler: async (request) => {
      const user = await visibleUser(request);
      const revoked = await ctx.identity.users.deleteUser(user);
      await ctx.authenticator.tokensRevoked(revoked);
      return { msg: 'Deleted' };
    },
  });
};
