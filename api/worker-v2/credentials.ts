import type { ApiPlugin } from '../type-provider.js';
import { parseAuthField } from '../../src/worker/codes/images/registry-credentials.js';
import { requireProject } from '../auth-hooks.js';
import { projectParams } from './params.js';
import type { WorkerRouteOptions } from './route-options.js';
import { msgSchema } from './views.js';

/** POST /2/projects/:id/credentials: registry credentials for pulling the project's images. */
export const credentialRoutes: ApiPlugin<WorkerRouteOptions> = async (app, { ctx, worker }) => {
  app.addHook('onRequest', requireProject(ctx));
  app.post('/2/projects/:project_id/credentials', {
    schema: {
      params: projectParams,
      body: { type: 'object', required: ['auth'], properties: { auth: { type: 'string', minLength: 1 } } },
      response: { 200: msgSchema },
    },
    handler: async (request) => {
      const { project_id: projectId } = request.params;
      const auth = parseAuthField(request.body.auth);
      await worker.credentials.save(projectId, auth);
      return { msg: 'Credentials saved' };
    },
  });
};
