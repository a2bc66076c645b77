import type { FromSchema } from 'json-schema-to-ts';
import { fail } from '../../src/core/errors.js';
import type { App, CallRecord } from '../../src/functions/types.js';
import { principalOf } from '../auth-hooks.js';
import type { ApiInstance, WithParams } from '../type-provider.js';
import type { ManagementDeps } from './deps.js';
import { appParams, callParams, pageQuery } from './schemas.js';
import { callSchema, callView, wrapped } from './views.js';

type CallParams = FromSchema<typeof callParams>;

/**
 * A call is its app's when it was made after the app was: a call left by an earlier app of the
 * same name (deleted, the name taken again, maybe by another project) is not the new app's.
 */
function madeBy(app: App, call: CallRecord): boolean {
  return call.projectId === app.projectId && call.createdAt >= app.createdAt;
}

const logSchema = { type: 'object', properties: { call_id: { type: 'string' }, log: { type: 'string' } } } as const;

export function callRoutes(app: ApiInstance, { stores, access }: ManagementDeps): void {
  app.get(
    '/apps/:app/calls',
    {
      schema: {
        params: appParams,
        querystring: pageQuery,
        response: wrapped('calls', { type: 'array', items: callSchema }),
      },
    },
    async (request) => {
      const found = await access.mustSeeApp(principalOf(request), request.params.app);
      const { cursor, page, per_page: perPage } = request.query;
      const { calls, nextCursor } = await stores.calls.list(found.name, { cursor, page, perPage });
      const own = calls.filter((call) => madeBy(found, call));
      return { message: 'Successfully listed calls', calls: own.map(callView), next_cursor: nextCursor };
    },
  );

  async function mustFindCall(request: WithParams<CallParams>) {
    const found = await access.mustSeeApp(principalOf(request), request.params.app);
    const call = await stores.calls.get(found.name, request.params.call_id);
    if (!call || !madeBy(found, call)) throw fail('fn_call_not_found');
    return call;
  }

  app.get(
    '/apps/:app/calls/:call_id',
    { schema: { params: callParams, response: wrapped('call', callSchema) } },
    async (request) => {
      return { message: 'Successfully loaded call', call: callView(await mustFindCall(request)) };
    },
  );

  app.get(
    '/apps/:app/calls/:call_id/log',
    { schema: { params: callParams, response: wrapped('log', logSchema) } },
    async (request) => {
      const call = await mustFindCall(request);
      return {
        message: 'Successfully loaded log',
        log: { call_id: call.id, log: await stores.calls.log(call.appName, call.id) },
      };
    },
  );
}
