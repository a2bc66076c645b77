import type { ApiPlugin } from './type-provider.js';
import { OUTCOMES } from '../src/metrics/history.js';
import { projectOf, requireProject } from './auth-hooks.js';
import type { PluginOptions } from './context.js';
import { toRfc3339 } from '../src/core/time.js';

const counts = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, { type: 'number' }]));

/**
 * Ferrum extension for the dashboard's charts: the last hour of a project's task outcomes
 * (per minute) and queue depth (as sampled).
 */
export const historyApi: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  const { history } = ctx;
  app.get('/1/projects/:project_id/history', {
    onRequest: requireProject(ctx),
    schema: {
      response: {
        200: {
          type: 'object',
          properties: {
            sample_interval_seconds: { type: 'number' },
            task_outcomes: {
              type: 'array',
              items: { type: 'object', properties: { time: { type: 'string' }, ...counts } },
            },
            queue_depth: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  time: { type: 'string' },
                  total: { type: 'number' },
                  queues: { type: 'object', additionalProperties: { type: 'number' } },
                },
              },
            },
          },
        },
      },
    },
    handler: async (request) => {
      const project = projectOf(request);
      const [outcomes, depth] = await Promise.all([history.taskOutcomes(project.id), history.queueDepth(project.id)]);
      return {
        sample_interval_seconds: ctx.config.historySampleMs / 1000,
        task_outcomes: outcomes.map((bucket) => ({ time: toRfc3339(bucket.time), ...bucket.counts })),
        queue_depth: depth.map((sample) => ({ ...sample, time: toRfc3339(sample.time) })),
      };
    },
  });
};
