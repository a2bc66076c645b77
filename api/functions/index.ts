import type { ApiPlugin } from '../type-provider.js';
import type { PluginOptions } from '../context.js';
import { appRoutes } from './apps.js';
import { functionsPrincipal } from './authenticate.js';
import { callRoutes } from './calls.js';
import { installFunctionErrors } from './errors.js';
import { routeRoutes } from './routes.js';

/** The functions platform's management API (under /v1): apps, their routes and call records. */
export const functionsApi: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  installFunctionErrors(app);
  app.addHook('onRequest', async (request) => {
    request.principal = await functionsPrincipal(ctx.authenticator, request);
  });
  const deps = { management: ctx.functionManagement };
  appRoutes(app, deps);
  routeRoutes(app, deps);
  callRoutes(app, deps);
};
