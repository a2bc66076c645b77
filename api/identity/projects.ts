import type { ApiInstance, ApiPlugin } from '../type-provider.js';
import type { ProjectDetails, ProjectService } from '../../src/auth/project-service.js';
import { PROJECT_STATUSES } from '../../src/auth/types.js';
import { principalOf, requireToken } from '../auth-hooks.js';
import type { PluginOptions } from '../context.js';
import { msgSchema, projectSchema, projectView } from './views.js';

const projectParams = {
  type: 'object',
  required: ['project_id'],
  properties: { project_id: { type: 'string' } },
} as const;

const quotaValue = { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;

/** PATCH `quotas`: each a number (the project's own) or null (back to the operator's default). */
const quotaChangesSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    stored_bytes: quotaValue,
    queue_bytes: quotaValue,
    queues: quotaValue,
    caches: quotaValue,
    apps: quotaValue,
    routes: quotaValue,
    hot_containers: quotaValue,
    queued_calls: quotaValue,
    queued_tasks: quotaValue,
  },
} as const;

const viewOf = ({ project, counters, quotas }: ProjectDetails) => projectView(project, counters, quotas);

export const projectRoutes: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  app.addHook('onRequest', requireToken(ctx));
  projectListRoutes(app, ctx.accounts.projects);
  projectRecordRoutes(app, ctx.accounts.projects);
  projectSharingRoutes(app, ctx.accounts.projects);
};

/** POST and GET /1/projects: create one, list the caller's. */
function projectListRoutes(app: ApiInstance, projects: ProjectService): void {
  app.post('/1/projects', {
    schema: {
      body: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 200 },
          user_id: { type: 'string' },
          id: { type: 'string' },
        },
      },
      response: { 201: projectSchema },
    },
    handler: async (request, reply) => {
      const { name, user_id: userId, id } = request.body;
      const created = await projects.create(principalOf(request), { name, userId, id });
      return reply.code(201).send(viewOf(created));
    },
  });

  app.get('/1/projects', {
    schema: {
      response: { 200: { type: 'object', properties: { projects: { type: 'array', items: projectSchema } } } },
    },
    handler: async (request) => ({ projects: (await projects.list(principalOf(request))).map(viewOf) }),
  });
}

/** GET, PATCH and DELETE /1/projects/{id}. */
function projectRecordRoutes(app: ApiInstance, projects: ProjectService): void {
  app.get('/1/projects/:project_id', {
    schema: { params: projectParams, response: { 200: projectSchema } },
    handler: async (request) => viewOf(await projects.get(principalOf(request), request.params.project_id)),
  });

  app.patch('/1/projects/:project_id', {
    schema: {
      params: projectParams,
      body: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 200 },
          status: { type: 'string', enum: [...PROJECT_STATUSES] },
          max_schedules: { type: 'integer', minimum: 0, maximum: 1_000_000 },
          quotas: quotaChangesSchema,
        },
      },
      response: { 200: projectSchema },
    },
    handler: async (request) => {
      const { name, status, max_schedules: maxSchedules, quotas } = request.body;
      const changes = { name, status, maxSchedules, quotas };
      return viewOf(await projects.update(principalOf(request), request.params.project_id, changes));
    },
  });

  app.delete('/1/projects/:project_id', {
    schema: { params: projectParams, response: { 200: msgSchema } },
    handler: async (request) => {
      await projects.delete(principalOf(request), request.params.project_id);
      return { msg: 'Deleted' };
    },
  });
}

/** Leaving a shared project, and sharing and unsharing by user id or e-mail address. */
function projectSharingRoutes(app: ApiInstance, projects: ProjectService): void {
  app.post('/1/projects/:project_id/leave', {
    schema: { params: projectParams, response: { 200: msgSchema } },
    handler: async (request) => {
      await projects.leave(principalOf(request), request.params.project_id);
      return { msg: 'Left the project' };
    },
  });

  for (const action of ['share', 'unshare'] as const) {
    app.patch(`/1/projects/:project_id/${action}`, {
      schema: { params: projectParams, response: { 200: projectSchema } },
      handler: async (request) => {
        const principal = principalOf(request);
        return viewOf(await projects.changeSharing(principal, request.params.project_id, action, request.body));
      },
    });
  }
}
