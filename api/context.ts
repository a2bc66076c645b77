import type { AppContext } from '../controller/app-context.js';

/** What every API plugin is given: the process's shared connections and services. */
export interface PluginOptions {
  ctx: AppContext;
}
