import type { ApiPlugin, WithParams } from '../type-provider.js';
import { fail } from '../../src/core/errors.js';
import type { ScheduleRequest, ScheduleService } from '../../src/worker/schedules/schedule-service.js';
import { projectOf, requireProject } from '../auth-hooks.js';
import { pagingQuery, projectParams } from './params.js';
import { scheduleSchema, scheduleView } from './schedule-views.js';
import { requireJsonContentType, taskRequestProperties } from './tasks.js';
import { msgSchema } from './views.js';
import { LIMITS } from '../../src/worker/types.js';
import type { PluginOptions } from '../context.js';

/** The schedule routes' options: every route is one ScheduleService call. */
export interface ScheduleRouteOptions extends PluginOptions {
  schedules: ScheduleService;
}

const MAX_SCHEDULES_PER_REQUEST = 100;

const scheduleParams = {
  type: 'object',
  required: ['project_id', 'schedule_id'],
  properties: { project_id: { type: 'string' }, schedule_id: { type: 'string' } },
} as const;

const scheduleRequestProperties = {
  ...taskRequestProperties,
  name: { type: 'string', maxLength: 255 },
  label: { type: 'string', maxLength: 255 },
  start_at: { type: 'string', minLength: 1 },
  end_at: { type: 'string', minLength: 1 },
  run_every: { type: 'integer', minimum: 1 },
  run_times: { type: 'integer', minimum: 1 },
  cron: { type: 'string', minLength: 1, maxLength: 255 },
  timezone: { type: 'string', minLength: 1, maxLength: 64 },
  task_delay: taskRequestProperties.delay,
} as const;

const createBody = {
  type: 'object',
  required: ['schedules'],
  properties: {
    schedules: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_SCHEDULES_PER_REQUEST,
      items: { type: 'object', required: ['code_name', 'payload'], properties: scheduleRequestProperties },
    },
  },
} as const;

/** A schedule as a client sends it: dates as RFC 3339 strings, `delay` standing for task_delay. */
type WireScheduleRequest = Omit<ScheduleRequest, 'start_at' | 'end_at'> & {
  start_at?: string;
  end_at?: string;
  delay?: number;
};

function timeOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw fail('schedule_bad_time', field);
  return ms;
}

function requestOf(wire: WireScheduleRequest, field: string): ScheduleRequest {
  const { delay, start_at, end_at, ...rest } = wire;
  return {
    ...rest,
    task_delay: wire.task_delay ?? delay,
    start_at: timeOf(start_at, `${field}start_at`),
    end_at: timeOf(end_at, `${field}end_at`),
  };
}

export const scheduleRoutes: ApiPlugin<ScheduleRouteOptions> = async (app, { ctx, schedules }) => {
  app.addHook('onRequest', requireProject(ctx));
  const projectIdOf = (request: WithParams<{ project_id: string }>) => request.params.project_id;
  const scheduleIdOf = (request: WithParams<{ schedule_id: string }>) => request.params.schedule_id;

  app.post('/2/projects/:project_id/schedules', {
    bodyLimit: LIMITS.payloadRequestBytes,
    preValidation: requireJsonContentType,
    schema: {
      params: projectParams,
      body: createBody,
      response: {
        200: {
          type: 'object',
          properties: {
            msg: { type: 'string' },
            schedules: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
          },
        },
      },
    },
    handler: async (request) => {
      const wire = request.body.schedules;
      const requests = wire.map((one, i) => requestOf(one, wire.length > 1 ? `schedules[${i}].` : ''));
      const project = { id: projectIdOf(request), ownerId: projectOf(request).userId };
      const created = await schedules.create(project, requests, projectOf(request).maxSchedules);
      return { msg: 'Scheduled', schedules: created.map((schedule) => ({ id: schedule.id })) };
    },
  });

  app.get('/2/projects/:project_id/schedules', {
    schema: {
      params: projectParams,
      querystring: pagingQuery,
      response: { 200: { type: 'object', properties: { schedules: { type: 'array', items: scheduleSchema } } } },
    },
    handler: async (request) => {
      const { page, per_page } = request.query;
      return { schedules: (await schedules.list(projectIdOf(request), page, per_page)).map(scheduleView) };
    },
  });

  app.get('/2/projects/:project_id/schedules/:schedule_id', {
    schema: { params: scheduleParams, response: { 200: scheduleSchema } },
    handler: async (request) => scheduleView(await schedules.get(projectIdOf(request), scheduleIdOf(request))),
  });

  app.post('/2/projects/:project_id/schedules/:schedule_id/cancel', {
    schema: { params: scheduleParams, response: { 200: msgSchema } },
    handler: async (request) => {
      await schedules.cancel(projectIdOf(request), scheduleIdOf(request));
      return { msg: 'Cancelled' };
    },
  });
};
