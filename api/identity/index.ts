import type { ApiPlugin } from '../type-provider.js';
import type { PluginOptions } from '../context.js';
import { authenticationRoutes } from './authentication.js';
import { projectRoutes } from './projects.js';
import { tokenRoutes } from './tokens.js';
import { userRoutes } from './users.js';

/** The identity service, API version 1. */
export const identityApi: ApiPlugin<PluginOptions> = async (app, options) => {
  await app.register(authenticationRoutes, options);
  await app.register(userRoutes, options);
  await app.register(tokenRoutes, options);
  await app.register(projectRoutes, options);
};
