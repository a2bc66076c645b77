import { ProjectLifecycle } from '../../src/auth/project-lifecycle.js';
import type { FastifyInstance } from 'fastify';
import { badRequest, conflict, notFound } from '../../src/core/errors.js';
import { checkAppName, checkConfig } from '../../src/functions/rules.js';
import type { ConfigMap } from '../../src/functions/types.js';
import { principalOf } from '../auth-hooks.js';
import type { ManagementDeps } from './deps.js';
import { appFields, appParams, pageQuery, wrappedBody } from './schemas.js';
import { appSchema, appView, wrapped } from './views.js';

interface AppBody {
  app: { name?: string; project_id?: string; config?: ConfigMap };
}
interface PageQuery {
  cursor?: string;
  per_page: number;
  project_id?: string;
}

export function appRoutes(app: FastifyInstance, { ctx, stores, access }: ManagementDeps): void {
  app.post<{ Body: AppBody; Querystring: PageQuery }>(
    '/apps',
    {
      schema: {
        body: wrappedBody('app', appFields, ['name']),
        querystring: pageQuery,
        response: wrapped('app', appSchema),
      },
    },
    async (request) => {
      const { name = '', config = {}, project_id: projectId } = request.body.app;
      checkAppName(name);
      checkConfig('app config', config);
      const project = await access.projectForNewApp(principalOf(request), projectId ?? request.query.project_id);
      const values = Object.fromEntries(Object.entries(config).filter(([, value]) => value !== ''));
      const created = await stores.apps.create(name, project, values);
      if (!created) throw conflict(`App "${name}" already exists`);
      await new ProjectLifecycle(ctx.redis, ctx.keys).appCreated(project, name);
      return { message: 'App successfully created', app: appView(created) };
    },
  );

  app.get<{ Querystring: PageQuery }>(
    '/apps',
    { schema: { querystring: pageQuery, response: wrapped('apps', { type: 'array', items: appSchema }) } },
    async (request) => {
      const { cursor, per_page: perPage } = request.query;
      const apps = await stores.apps.list(await access.scopeOf(principalOf(request)), cursor, perPage);
      const nextCursor = apps.length === perPage ? apps[apps.length - 1]!.name : undefined;
      return { message: 'Successfully listed applications', apps: apps.map(appView), next_cursor: nextCursor };
    },
  );

  app.get<{ Params: { app: string } }>(
    '/apps/:app',
    { schema: { params: appParams, response: wrapped('app', appSchema) } },
    async (request) => {
      const found = await access.mustSeeApp(principalOf(request), request.params.app);
      return { message: 'Successfully loaded app', app: appView(found) };
    },
  );

  app.patch<{ Params: { app: string }; Body: AppBody }>(
    '/apps/:app',
    { schema: { params: appParams, body: wrappedBody('app', appFields), response: wrapped('app', appSchema) } },
    async (request) => {
      const { name, config = {} } = request.body.app;
      const found = await access.mustSeeApp(principalOf(request), request.params.app);
      if (name !== undefined && name !== found.name) throw badRequest('app.name is immutable');
      checkConfig('app config', config);
      const updated = await stores.apps.updateConfig(found.name, config);
      if (!updated) throw notFound('App not found');
      return { message: 'App successfully updated', app: appView(updated) };
    },
  );

  app.delete<{ Params: { app: string } }>(
    '/apps/:app',
    { schema: { params: appParams, response: wrapped('app', appSchema) } },
    async (request) => {
      const found = await access.mustSeeApp(principalOf(request), request.params.app);
      const outcome = await stores.apps.delete(found);
      if (outcome === 'missing') throw notFound('App not found');
      if (outcome === 'has-routes') throw conflict('Cannot remove an app that has routes: delete its routes first');
      await stores.calls.dropIndex(found.name);
      return { message: 'App successfully deleted' };
    },
  );
}
