import type { FunctionManagement } from '../../src/functions/services.js';

/** What the management routes share: the management domain, one call per request. */
export interface ManagementDeps {
  management: FunctionManagement;
}
