import type { FastifyPluginAsync } from 'fastify';
import { parseAuthField } from '../../src/worker/registry-credentials.js';
import type { WorkerServices } from '../../src/worker/services.js';
import { requireProject, requireToken } from '../auth-hooks.js';
import type { AppContext } from '../context.js';
import { projectParams } from './params.js';
import { msgSchema } from './views.js';

interface RouteOptions {
  ctx: AppContext;
  worker: WorkerServices;
}

/** GET /2/stacks: the stack names zip packages may use (each runs in a configured image). */
export const stackRoutes: FastifyPluginAsync<RouteOptions> = async (app, { ctx }) => {
  app.addHook('preHandler', requireToken(ctx));
  app.get('/2/stacks', {
    schema: { response: { 200: { type: 'array', items: { type: 'string' } } } },
    handler: async () => Object.keys(ctx.config.worker.stacks).sort(),
  });
};

/** POST /2/projects/:id/credentials: registry credentials for pulling the project's images. */
export const credentialRoutes: FastifyPluginAsync<RouteOptions> = async (app, { ctx, worker }) => {
  app.addHook('preHandler', requireProject(ctx));
  app.post('/2/projects/:project_id/credentials', {
    schema: {
      params: projectParams,
      body: { type: 'object', required: ['auth'], properties: { auth: { type: 'string', minLength: 1 } } },
      response: { 200: msgSchema },
    },
    handler: async (request) => {
      const { project_id: projectId } = request.params as { project_id: string };
      const auth = parseAuthField((request.body as { auth: string }).auth);
      await worker.credentials.save(projectId, auth);
      return { msg: 'Credentials saved' };
    },
  });
};
