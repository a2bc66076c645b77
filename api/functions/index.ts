import type { ApiPlugin } from '../type-provider.js';
import type { PluginOptions } from '../context.js';
import { openFunctionManagement } from '../../src/functions/services.js';
import { appRoutes } from './apps.js';
import { functionsPrincipal } from './authenticate.js';
import { callRoutes } from './calls.js';
import { installFunctionErrors } from './errors.js';
import { routeRoutes } from './routes.js';

/** The functions platform's management API (under /v1): apps, their routes and call records. */
export const functionsApi: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  installFunctionErrors(app);
  const management = openFunctionManagement(ctx.functions, {
    authenticator: ctx.authenticator,
    projects: ctx.identity.projects,
    quotaDefaults: ctx.config.quotas,
    lifecycle: ctx.lifecycle,
    settings: ctx.config.functions,
  });
  app.addHook('onRequest', async (request) => {
    request.principal = await functionsPrincipal(ctx.authenticator, request);
  });
  const deps = { management };
  appRoutes(app, deps);
  routeRoutes(app, deps);
  callRoutes(app, deps);
};
