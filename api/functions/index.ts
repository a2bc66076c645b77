import type { ApiPlugin } from '../type-provider.js';
import type { PluginOptions } from '../context.js';
import { FunctionAccess } from './access.js';
import { appRoutes } from './apps.js';
import { callRoutes } from './calls.js';
import { installFunctionErrors } from './errors.js';
import { routeRoutes } from './routes.js';

/** The functions platform's management API (under /v1): apps, their routes and call records. */
export const functionsApi: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  installFunctionErrors(app);
  const stores = ctx.functions;
  const access = new FunctionAccess(ctx, stores);
  app.addHook('onRequest', async (request) => {
    request.principal = await access.authenticate(request);
  });
  const deps = { ctx, stores, access };
  appRoutes(app, deps);
  routeRoutes(app, deps);
  callRoutes(app, deps);
};
