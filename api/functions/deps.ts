import type { FunctionStores } from '../../src/functions/services.js';
import type { AppContext } from '../context.js';
import type { FunctionAccess } from './access.js';

/** What the management routes share. */
export interface ManagementDeps {
  ctx: AppContext;
  stores: FunctionStores;
  access: FunctionAccess;
}
