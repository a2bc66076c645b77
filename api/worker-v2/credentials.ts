import type { ApiPlugin } from '../type-provider.js';
import type { RegistryCredentials } from '../../src/worker/codes/images/registry-credentials.js';
import type { PluginOptions } from '../context.js';
import { requireProject } from '../auth-hooks.js';
import { projectParams } from './params.js';
import { msgSchema } from './views.js';

/** The credentials route's options: the route is one RegistryCredentials call. */
export interface CredentialRouteOptions extends PluginOptions {
  credentials: RegistryCredentials;
}

/** POST /2/projects/:id/credentials: registry credentials for pulling the project's images. */
export const credentialRoutes: ApiPlugin<CredentialRouteOptions> = async (app, { ctx, credentials }) => {
  app.addHook('onRequest', requireProject(ctx));
  app.post('/2/projects/:project_id/credentials', {
    schema: {
      params: projectParams,
      body: { type: 'object', required: ['auth'], properties: { auth: { type: 'string', minLength: 1 } } },
      response: { 200: msgSchema },
    },
    handler: async (request) => {
      await credentials.saveAuthField(request.params.project_id, request.body.auth);
      return { msg: 'Credentials saved' };
    },
  });
};
