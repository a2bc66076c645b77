import type { FastifyRequest } from 'fastify';
import type { ApiInstance, ApiPlugin, WithParams } from '../type-provider.js';
import { fail } from '../../src/core/errors.js';
import { TASK_BOUNDS } from '../../src/worker/tasks/task-admission.js';
import type { TaskService } from '../../src/worker/tasks/task-service.js';
import { LIMITS } from '../../src/worker/types.js';
import { projectOf } from '../auth-hooks.js';
import type { PluginOptions } from '../context.js';
import { requireProjectOrOwnTask } from './task-token-auth.js';
import { CLUSTER_NAME, projectParams, taskParams } from './params.js';
import { taskFilterOf, taskListQuery } from './task-query.js';
import { msgSchema, queuedSchema, taskSchema, taskView } from './views.js';

/** The task routes' options: every route is one TaskService call. */
export interface TaskRouteOptions extends PluginOptions {
  tasks: TaskService;
}

export const taskRequestProperties = {
  code_name: { type: 'string', minLength: 1 },
  payload: { type: 'string' },
  priority: { type: 'integer', ...TASK_BOUNDS.priority },
  cluster: { type: 'string', pattern: CLUSTER_NAME },
  timeout: { type: 'integer', ...TASK_BOUNDS.timeout },
  delay: { type: 'integer', ...TASK_BOUNDS.delay },
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

/** `offset`: the first byte of the log to answer (a follower passes the bytes it already has). */
const logQuery = {
  type: 'object',
  properties: { offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } },
} as const;

/** Queue and retry refuse bodies not declared as JSON, as the spec says (406). */
export async function requireJsonContentType(request: FastifyRequest): Promise<void> {
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) throw fail('task_json_required');
}

const projectIdOf = (request: WithParams<{ project_id: string }>) => request.params.project_id;
const taskIdOf = (request: WithParams<{ task_id: string }>) => request.params.task_id;

export const taskRoutes: ApiPlugin<TaskRouteOptions> = async (app, { ctx, tasks }) => {
  app.addHook('onRequest', requireProjectOrOwnTask(ctx));
  taskQueueRoutes(app, tasks);
  taskReadRoutes(app, tasks);
  taskChangeRoutes(app, tasks);
};

/** Queue new tasks, and retry one (a new task like it). */
function taskQueueRoutes(app: ApiInstance, tasks: TaskService): void {
  app.post('/2/projects/:project_id/tasks', {
    bodyLimit: LIMITS.payloadRequestBytes,
    preValidation: requireJsonContentType,
    schema: { params: projectParams, body: queueBody, response: { 200: queuedSchema } },
    handler: async (request) => {
      const project = { id: projectIdOf(request), ownerId: projectOf(request).userId };
      const queued = await tasks.create(project, request.body.tasks);
      return { msg: 'Queued up', tasks: queued.map((task) => ({ id: task.id })) };
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
      const task = await tasks.retryById(projectIdOf(request), taskIdOf(request), request.body.delay);
      return { msg: 'Queued up', tasks: [{ id: task.id }] };
    },
  });
}

/** List, get and read the log of tasks. */
function taskReadRoutes(app: ApiInstance, tasks: TaskService): void {
  app.get('/2/projects/:project_id/tasks', {
    schema: {
      params: projectParams,
      querystring: taskListQuery,
      response: { 200: { type: 'object', properties: { tasks: { type: 'array', items: taskSchema } } } },
    },
    handler: async (request) => ({
      tasks: (await tasks.list(projectIdOf(request), taskFilterOf(request.query))).map(taskView),
    }),
  });

  app.get('/2/projects/:project_id/tasks/:task_id', {
    schema: { params: taskParams, response: { 200: taskSchema } },
    handler: async (request) => taskView(await tasks.get(projectIdOf(request), taskIdOf(request))),
  });

  app.get('/2/projects/:project_id/tasks/:task_id/log', {
    schema: { params: taskParams, querystring: logQuery },
    handler: async (request, reply) => {
      const log = await tasks.log(projectIdOf(request), taskIdOf(request), request.query.offset);
      return reply.type('text/plain; charset=utf-8').send(log);
    },
  });
}

/** Progress and cancel a task. */
function taskChangeRoutes(app: ApiInstance, tasks: TaskService): void {
  app.post('/2/projects/:project_id/tasks/:task_id/progress', {
    config: { taskToken: 'own task only' },
    schema: { params: taskParams, body: progressBody, response: { 200: msgSchema } },
    handler: async (request) => {
      await tasks.progress(projectIdOf(request), taskIdOf(request), request.body);
      return { msg: 'Progress set' };
    },
  });

  app.post('/2/projects/:project_id/tasks/:task_id/cancel', {
    config: { taskToken: 'refused' },
    schema: { params: taskParams, response: { 200: msgSchema } },
    handler: async (request) => {
      await tasks.cancel(projectIdOf(request), taskIdOf(request));
      return { msg: 'Cancelled' };
    },
  });
}
