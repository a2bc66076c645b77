import { principalOf } from '../auth-hooks.js';
import type { ManagementDeps } from './deps.js';
import type { ApiInstance } from '../type-provider.js';
import { appBody, appParams, newAppBody, pageQuery } from './schemas.js';
import { appSchema, appView, wrapped } from './views.js';

export function appRoutes(app: ApiInstance, { management }: ManagementDeps): void {
  const apps = management.apps;
  app.post(
    '/apps',
    {
      schema: {
        body: newAppBody,
        querystring: pageQuery,
        response: wrapped('app', appSchema),
      },
    },
    async (request) => {
      const created = await apps.create(principalOf(request), request.body.app, request.query.project_id);
      return { message: 'App successfully created', app: appView(created) };
    },
  );

  app.get(
    '/apps',
    { schema: { querystring: pageQuery, response: wrapped('apps', { type: 'array', items: appSchema }) } },
    async (request) => {
      const { cursor, per_page: perPage } = request.query;
      const listed = await apps.list(principalOf(request), cursor, perPage);
      const nextCursor = listed.length === perPage ? listed[listed.length - 1]!.name : undefined;
      return { message: 'Successfully listed applications', apps: listed.map(appView), next_cursor: nextCursor };
    },
  );

  app.get('/apps/:app', { schema: { params: appParams, response: wrapped('app', appSchema) } }, async (request) => {
    const found = await apps.get(principalOf(request), request.params.app);
    return { message: 'Successfully loaded app', app: appView(found) };
  });

  app.patch(
    '/apps/:app',
    { schema: { params: appParams, body: appBody, response: wrapped('app', appSchema) } },
    async (request) => {
      const updated = await apps.update(principalOf(request), request.params.app, request.body.app);
      return { message: 'App successfully updated', app: appView(updated) };
    },
  );

  app.delete('/apps/:app', { schema: { params: appParams, response: wrapped('app', appSchema) } }, async (request) => {
    await apps.delete(principalOf(request), request.params.app);
    return { message: 'App successfully deleted' };
  });
}
