import { fail } from '../../src/core/errors.js';
import { checkAppName, checkConfig } from '../../src/functions/apps/rules.js';
import { principalOf } from '../auth-hooks.js';
import type { ManagementDeps } from './deps.js';
import type { ApiInstance } from '../type-provider.js';
import { appBody, appParams, newAppBody, pageQuery } from './schemas.js';
import { appSchema, appView, wrapped } from './views.js';

export function appRoutes(app: ApiInstance, { ctx, stores, access }: ManagementDeps): void {
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
      const { name = '', config = {}, project_id: projectId } = request.body.app;
      checkAppName(name);
      checkConfig('app config', config);
      const project = await access.projectForNewApp(principalOf(request), projectId ?? request.query.project_id);
      await access.checkRoom(project, { newApp: true, newRoute: false });
      const values = Object.fromEntries(Object.entries(config).filter(([, value]) => value !== ''));
      const created = await stores.apps.create(name, project, values);
      if (!created) throw fail('fn_app_exists', name);
      await ctx.lifecycle.appCreated(project, name);
      return { message: 'App successfully created', app: appView(created) };
    },
  );

  app.get(
    '/apps',
    { schema: { querystring: pageQuery, response: wrapped('apps', { type: 'array', items: appSchema }) } },
    async (request) => {
      const { cursor, per_page: perPage } = request.query;
      const apps = await stores.apps.list(await access.scopeOf(principalOf(request)), cursor, perPage);
      const nextCursor = apps.length === perPage ? apps[apps.length - 1]!.name : undefined;
      return { message: 'Successfully listed applications', apps: apps.map(appView), next_cursor: nextCursor };
    },
  );

  app.get('/apps/:app', { schema: { params: appParams, response: wrapped('app', appSchema) } }, async (request) => {
    const found = await access.mustSeeApp(principalOf(request), request.params.app);
    return { message: 'Successfully loaded app', app: appView(found) };
  });

  app.patch(
    '/apps/:app',
    { schema: { params: appParams, body: appBody, response: wrapped('app', appSchema) } },
    async (request) => {
      const { name, config = {} } = request.body.app;
      const found = await access.mustSeeApp(principalOf(request), request.params.app);
      if (name !== undefined && name !== found.name) throw fail('fn_app_name_immutable');
      checkConfig('app config', config);
      const updated = await stores.apps.updateConfig(found.name, config);
      if (!updated) throw fail('fn_app_not_found');
      return { message: 'App successfully updated', app: appView(updated) };
    },
  );

  app.delete('/apps/:app', { schema: { params: appParams, response: wrapped('app', appSchema) } }, async (request) => {
    const found = await access.mustSeeApp(principalOf(request), request.params.app);
    const outcome = await stores.apps.delete(found);
    if (outcome === 'missing') throw fail('fn_app_not_found');
    if (outcome === 'has-routes') throw fail('fn_app_has_routes');
    return { message: 'App successfully deleted' };
  });
}
