import type { FastifyRequest } from 'fastify';
import type { ApiPlugin, WithParams } from '../type-provider.js';
import { badRequest, notAcceptable } from '../../src/core/errors.js';
import { LIMITS } from '../../src/worker/types.js';
import { projectOf } from '../auth-hooks.js';
import { requireProjectOrOwnTask } from './task-token-auth.js';
import { CLUSTER_NAME, projectParams, taskParams } from './params.js';
import { taskFilterOf, taskListQuery } from './task-query.js';
import { msgSchema, queuedSchema, taskSchema, taskView } from './views.js';
import type { WorkerRouteOptions } from './route-options.js';

export const taskRequestProperties = {
  code_name: { type: 'string', minLength: 1 },
  payload: { type: 'string' },
  priority: { type: 'integer', minimum: 0, maximum: 2 },
  cluster: { type: 'string', pattern: CLUSTER_NAME },
  timeout: { type: 'integer', minimum: 1, maximum: LIMITS.maxTimeout },
  delay: { type: 'integer', minimum: 0, maximum: LIMITS.maxDelay },
} as const;

const queueBody = {
  type: 'object',
  required: ['tasks'],
  properties: {
    tasks: {
      type: 'array',
      minItems: 1,
      maxItems: LIMITS.maxTasksPerRequest,
      items: {
        type: 'object',
        required: ['code_name', 'payload'],
        properties: { ...taskRequestProperties, label: { type: 'string', maxLength: 255 } },
      },
    },
  },
} as const;

const progressBody = {
  type: 'object',
  properties: { percent: { type: 'integer', minimum: 0, maximum: 100 }, msg: { type: 'string', maxLength: 1024 } },
} as const;

/** Queue and retry refuse bodies not declared as JSON, as the spec says (406). */
/** `offset`: the first byte of the log to answer (a follower passes the bytes it already has). */
const logQuery = {
  type: 'object',
  properties: { offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } },
} as const;

export async function requireJsonContentType(request: FastifyRequest): Promise<void> {
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) throw notAcceptable('Content-Type: application/json is required');
}

export const taskRoutes: ApiPlugin<WorkerRouteOptions> = async (app, { ctx, worker }) => {
  app.addHook('onRequest', requireProjectOrOwnTask(ctx));
  const projectIdOf = (request: WithParams<{ project_id: string }>) => request.params.project_id;
  const taskIdOf = (request: WithParams<{ task_id: string }>) => request.params.task_id;

  app.post('/2/projects/:project_id/tasks', {
    bodyLimit: LIMITS.payloadRequestBytes,
    preValidation: requireJsonContentType,
    schema: { params: projectParams, body: queueBody, response: { 200: queuedSchema } },
    handler: async (request) => {
      const { tasks } = request.body;
      await worker.clusterAccess.checkUsable(
        projectOf(request).userId,
        tasks.map((task) => task.cluster),
      );
      const queued = await worker.tasks.queue(projectIdOf(request), tasks);
      return { msg: 'Queued up', tasks: queued.map((task) => ({ id: task.id })) };
    },
  });

  app.get('/2/projects/:project_id/tasks', {
    schema: {
      params: projectParams,
      querystring: taskListQuery,
      response: { 200: { type: 'object', properties: { tasks: { type: 'array', items: taskSchema } } } },
    },
    handler: async (request) => {
      const filter = taskFilterOf(request.query);
      if (filter.from !== undefined && filter.to !== undefined && filter.from > filter.to)
        throw badRequest('from_time must not be after to_time');
      return { tasks: (await worker.taskStore.list(projectIdOf(request), filter)).map(taskView) };
    },
  });

  app.get('/2/projects/:project_id/tasks/:task_id', {
    schema: { params: taskParams, response: { 200: taskSchema } },
    handler: async (request) => taskView(await worker.taskStore.get(projectIdOf(request), taskIdOf(request))),
  });

  app.get('/2/projects/:project_id/tasks/:task_id/log', {
    schema: { params: taskParams, querystring: logQuery },
    handler: async (request, reply) => {
      const { offset } = request.query;
      const log =
        offset === undefined
          ? await worker.taskStore.log(projectIdOf(request), taskIdOf(request))
          : await worker.taskStore.logFrom(projectIdOf(request), taskIdOf(request), offset);
      return reply.type('text/plain; charset=utf-8').send(log);
    },
  });

  app.post('/2/projects/:project_id/tasks/:task_id/progress', {
    config: { taskToken: 'own task only' },
    schema: { params: taskParams, body: progressBody, response: { 200: msgSchema } },
    handler: async (request) => {
      const { percent, msg } = request.body;
      if (percent === undefined && msg === undefined) throw badRequest('percent or msg is required');
      await worker.statuses.progress(projectIdOf(request), taskIdOf(request), { percent, msg });
      return { msg: 'Progress set' };
    },
  });

  app.post('/2/projects/:project_id/tasks/:task_id/cancel', {
    config: { taskToken: 'refused' },
    schema: { params: taskParams, response: { 200: msgSchema } },
    handler: async (request) => {
      await worker.tasks.cancel(projectIdOf(request), taskIdOf(request));
      return { msg: 'Cancelled' };
    },
  });

  app.post('/2/projects/:project_id/tasks/:task_id/retry', {
    config: { taskToken: 'refused' },
    preValidation: requireJsonContentType,
    schema: {
      params: taskParams,
      body: { type: 'object', properties: { delay: taskRequestProperties.delay } },
      response: { 200: queuedSchema },
    },
    handler: async (request) => {
      const old = await worker.taskStore.get(projectIdOf(request), taskIdOf(request));
      const { delay } = request.body;
      const task = await worker.tasks.retry(old, delay);
      return { msg: 'Queued up', tasks: [{ id: task.id }] };
    },
  });
};
