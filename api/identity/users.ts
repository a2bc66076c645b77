import type { ApiInstance, ApiPlugin } from '../type-provider.js';
import { USER_STATUSES } from '../../src/auth/types.js';
import type { UserService } from '../../src/auth/user-service.js';
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
  userListRoutes(app, ctx.accounts.users);
  userRecordRoutes(app, ctx.accounts.users);
};

/** POST and GET /1/users (admin tokens only). */
function userListRoutes(app: ApiInstance, users: UserService): void {
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
      const user = await users.create(principalOf(request), request.body);
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
      const { previous, per_page: perPage = 30 } = request.query;
      const page = await users.list(principalOf(request), previous, perPage);
      return { users: page.map((user) => userView(user)) };
    },
  });
}

/** GET, PATCH and DELETE /1/users/{id or e-mail}. */
function userRecordRoutes(app: ApiInstance, users: UserService): void {
  app.get('/1/users/:user_id_or_email', {
    schema: { params: userParams, response: { 200: userSchema } },
    handler: async (request) => userView(await users.visible(principalOf(request), request.params.user_id_or_email)),
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
    handler: async (request) =>
      userView(await users.update(principalOf(request), request.params.user_id_or_email, request.body)),
  });

  app.delete('/1/users/:user_id_or_email', {
    schema: { params: userParams, response: { 200: msgSchema } },
    handler: async (request) => {
      await users.delete(principalOf(request), request.params.user_id_or_email);
      return { msg: 'Deleted' };
    },
  });
}
