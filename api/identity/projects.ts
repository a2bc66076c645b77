import type { ApiPlugin, WithParams } from '../type-provider.js';
import { access } from '../../src/auth/access.js';
import { readProjectCounters } from '../../src/auth/project-counters.js';
import { quotasOf } from '../../src/auth/quotas.js';
import { PROJECT_STATUSES, type Project } from '../../src/auth/types.js';
import { badRequest, conflict, forbidden, notAcceptable, notFound } from '../../src/core/errors.js';
import { principalOf, requireToken } from '../auth-hooks.js';
import type { AppContext } from '../../controller/app-context.js';
import type { PluginOptions } from '../context.js';
import { msgSchema, projectSchema, projectView } from './views.js';

const projectParams = {
  type: 'object',
  required: ['project_id'],
  properties: { project_id: { type: 'string' } },
} as const;

const PROJECT_ID = /^[A-Za-z0-9_-]{1,64}$/;

const isEmailAddress = (identifier: string) => identifier.includes('@');

async function viewOf(ctx: AppContext, project: Project) {
  const counters = await readProjectCounters(ctx.redis, ctx.keys, project.id);
  return projectView(project, counters, quotasOf(project, ctx.config.quotas));
}

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
  },
} as const;

/**
 * The user identifiers of a share/unshare body. Accepted forms: ["id", …], [{"user_id": …}, …],
 * {"user_ids": [...]}, {"user_id": "…"}, {"users": [...]}; e-mail addresses work as identifiers.
 */
export function shareIdentifiers(body: unknown): string[] {
  const list = identifierList(body);
  if (list === undefined) throw notAcceptable('user_id list is required');
  if (!Array.isArray(list)) throw badRequest('user_ids must be a list');
  if (list.length === 0) throw notAcceptable('user_id list is required');
  return list.map((item: unknown) => {
    const id: unknown = typeof item === 'object' && item !== null ? Reflect.get(item, 'user_id') : item;
    if (typeof id !== 'string' || id === '') throw badRequest('each user_id must be a non-empty string');
    return id;
  });
}

/** The list a share/unshare body gives, whichever of its forms it takes (undefined: none). */
function identifierList(body: unknown): unknown {
  if (Array.isArray(body)) return body;
  if (typeof body !== 'object' || body === null) return undefined;
  const field = (name: string): unknown => Reflect.get(body, name);
  return field('user_ids') ?? field('users') ?? (field('user_id') !== undefined ? [field('user_id')] : undefined);
}

export const projectRoutes: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  app.addHook('onRequest', requireToken(ctx));
  const { lifecycle } = ctx;

  async function projectFromPath(request: WithParams<{ project_id: string }>, manage: boolean): Promise<Project> {
    const { project_id: projectId } = request.params;
    const principal = principalOf(request);
    const project = await ctx.identity.projects.getProject(projectId);
    if (!project) throw notFound('Project not found');
    if (!access.useProject(principal, project)) throw forbidden('This token has no access to the project');
    if (manage && !access.manageProject(principal, project)) throw forbidden('Only the owner may do this');
    return project;
  }

  /** User ids as given (404 for an unknown one: ids tell nothing about e-mail addresses). */
  async function resolveIds(ids: string[]): Promise<string[]> {
    const users = await Promise.all(ids.map((id) => ctx.identity.users.getUser(id)));
    return users.map((user, i) => {
      if (!user) throw notFound(`User not found: ${ids[i]}`);
      return user.id;
    });
  }

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
      const principal = principalOf(request);
      const body = request.body;
      if ((body.user_id !== undefined || body.id !== undefined) && !principal.admin) {
        throw forbidden('Only admin tokens may choose a project owner or id');
      }
      if (body.id !== undefined && !PROJECT_ID.test(body.id)) throw badRequest('id must be 1-64 of [A-Za-z0-9_-]');
      const owner = body.user_id ? await ctx.identity.users.findUser(body.user_id) : null;
      if (body.user_id && !owner) throw notFound('User not found');
      const cap = ctx.config.tenantLimits.projectsPerUser;
      if (!principal.admin && (await ctx.identity.projects.countOwnedProjects(principal.userId)) >= cap)
        throw forbidden(
          `you own ${cap} projects, the most a user may (FERRUM_MAX_PROJECTS_PER_USER): delete one first`,
        );
      if (body.id !== undefined && (await lifecycle.isTombstoned(body.id)))
        throw conflict(`project id ${body.id} belonged to a deleted project; ids are never reused`);
      const project = await ctx.identity.projects.createProject({
        name: body.name,
        userId: owner?.id ?? principal.userId,
        id: body.id,
      });
      return reply.code(201).send(await viewOf(ctx, project));
    },
  });

  app.get('/1/projects', {
    schema: {
      response: { 200: { type: 'object', properties: { projects: { type: 'array', items: projectSchema } } } },
    },
    handler: async (request) => {
      const projects = await ctx.identity.projects.listProjectsOf(principalOf(request).userId);
      return { projects: await Promise.all(projects.map((project) => viewOf(ctx, project))) };
    },
  });

  app.get('/1/projects/:project_id', {
    schema: { params: projectParams, response: { 200: projectSchema } },
    handler: async (request) => viewOf(ctx, await projectFromPath(request, false)),
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
      const project = await projectFromPath(request, true);
      const body = request.body;
      if (
        (body.status !== undefined || body.max_schedules !== undefined || body.quotas !== undefined) &&
        !principalOf(request).admin
      ) {
        throw forbidden('Only admin tokens may change a project status, max_schedules or quotas');
      }
      const updated = await ctx.identity.projects.updateProject(project, {
        name: body.name,
        status: body.status,
        maxSchedules: body.max_schedules,
        quotas: body.quotas,
      });
      if (body.status !== undefined && body.status !== project.status) {
        const owner = await ctx.identity.users.getUser(project.userId);
        await lifecycle.setSuspended(project.id, body.status === 'suspended' || owner?.status === 'suspended');
      }
      await ctx.authenticator.projectChanged(project.id);
      return viewOf(ctx, updated);
    },
  });

  app.delete('/1/projects/:project_id', {
    schema: { params: projectParams, response: { 200: msgSchema } },
    handler: async (request) => {
      const project = await projectFromPath(request, true);
      // Nothing new starts while the janitor purges the project's data in the background.
      await lifecycle.setSuspended(project.id, true);
      await ctx.identity.projects.deleteProject(project);
      await lifecycle.deleted(project.id);
      await ctx.authenticator.projectChanged(project.id);
      return { msg: 'Deleted' };
    },
  });

  // A user a project is shared with leaves the share (the owner shares, only the user leaves).
  app.post('/1/projects/:project_id/leave', {
    schema: { params: projectParams, response: { 200: msgSchema } },
    handler: async (request) => {
      const project = await projectFromPath(request, false);
      const { userId } = principalOf(request);
      if (project.userId === userId) throw badRequest('The owner cannot leave its own project: delete it instead');
      if (!project.sharedWith.includes(userId)) throw notFound('This project is not shared with you');
      await ctx.identity.projects.unshare(project, [userId]);
      await ctx.authenticator.projectChanged(project.id);
      return { msg: 'Left the project' };
    },
  });

  // E-mail addresses are shared with (and unshared) whether or not a user has them, and shown
  // as given: no answer tells whether an address belongs to someone.
  for (const action of ['share', 'unshare'] as const) {
    app.patch(`/1/projects/:project_id/${action}`, {
      schema: { params: projectParams, response: { 200: projectSchema } },
      handler: async (request) => {
        const project = await projectFromPath(request, true);
        const identifiers = shareIdentifiers(request.body);
        const emails = identifiers.filter(isEmailAddress);
        const userIds = await resolveIds(identifiers.filter((identifier) => !isEmailAddress(identifier)));
        let updated = await ctx.identity.projects[action](project, userIds);
        if (emails.length > 0)
          updated = await (action === 'share'
            ? ctx.identity.projects.shareWithEmails(updated, emails)
            : ctx.identity.projects.unshareEmails(updated, emails));
        await ctx.authenticator.projectChanged(project.id);
        return viewOf(ctx, updated);
      },
    });
  }
};
