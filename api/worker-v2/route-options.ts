import type { WorkerServices } from '../../src/worker/services.js';
import type { AppContext } from '../context.js';

/** What each worker route plugin is given: the app's context and the worker services. */
export interface WorkerRouteOptions {
  ctx: AppContext;
  worker: WorkerServices;
}
