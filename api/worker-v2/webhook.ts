import type { ApiPlugin } from '../type-provider.js';
import { projectOf, requireProject } from '../auth-hooks.js';
import { projectParams } from './params.js';
import { taskRequestProperties } from './tasks.js';
import type { TaskRouteOptions } from './tasks.js';
import { LIMITS } from '../../src/worker/types.js';

/**
 * POST /tasks/webhook: whatever the body is, byte for byte, becomes the payload. This plugin
 * has its own content parsers so a JSON body is kept as sent rather than parsed.
 */
export const webhookRoutes: ApiPlugin<TaskRouteOptions> = async (app, { ctx, tasks }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.addHook('onRequest', requireProject(ctx, { allowTaskTokens: true }));

  app.post('/2/projects/:project_id/tasks/webhook', {
    bodyLimit: LIMITS.payloadRequestBytes,
    schema: {
      params: projectParams,
      querystring: {
        type: 'object',
        required: ['code_name'],
        properties: {
          code_name: taskRequestProperties.code_name,
          priority: taskRequestProperties.priority,
          cluster: taskRequestProperties.cluster,
          timeout: taskRequestProperties.timeout,
          delay: taskRequestProperties.delay,
        },
      },
      response: { 200: { type: 'object', properties: { id: { type: 'string' }, msg: { type: 'string' } } } },
    },
    handler: async (request) => {
      const project = { id: request.params.project_id, ownerId: projectOf(request).userId };
      const payload = typeof request.body === 'string' ? request.body : '';
      const [task] = await tasks.create(project, [{ ...request.query, payload }]);
      return { id: task!.id, msg: 'Queued up' };
    },
  });
};
