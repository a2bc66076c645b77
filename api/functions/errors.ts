import type { FastifyInstance } from 'fastify';
import { withoutHostPaths } from '../../src/core/host-paths.js';
import { installErrorHandling, type ErrorShape } from '../error-handler.js';

export function errorBody(message: string) {
  return { error: { message: withoutHostPaths(message) } };
}

/**
 * The functions platform answers errors as {"error":{"message"}} (its own shape, unlike the
 * other services' {"msg"}); a missing field is 400, and an unknown path 404 whatever the method.
 */
export const FUNCTIONS_ERROR_SHAPE: ErrorShape = {
  body: errorBody,
  schema: { indexes: 'dots', missingField: 'fn_field_required' },
  methodNotAllowed: false,
};

/** The one error handler (api/error-handler.ts) in the functions' shape, scoped to the plugin this is called in. */
export function installFunctionErrors(app: FastifyInstance): void {
  installErrorHandling(app, FUNCTIONS_ERROR_SHAPE);
}
