import { principalOf } from '../auth-hooks.js';
import type { ApiInstance } from '../type-provider.js';
import type { ManagementDeps } from './deps.js';
import { appParams, callParams, pageQuery } from './schemas.js';
import { callSchema, callView, wrapped } from './views.js';

const logSchema = { type: 'object', properties: { call_id: { type: 'string' }, log: { type: 'string' } } } as const;

export function callRoutes(app: ApiInstance, { management }: ManagementDeps): void {
  const records = management.calls;
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
      const { cursor, page, per_page: perPage } = request.query;
      const listed = await records.list(principalOf(request), request.params.app, { cursor, page, perPage });
      return {
        message: 'Successfully listed calls',
        calls: listed.calls.map(callView),
        next_cursor: listed.nextCursor,
      };
    },
  );

  app.get(
    '/apps/:app/calls/:call_id',
    { schema: { params: callParams, response: wrapped('call', callSchema) } },
    async (request) => {
      const call = await records.get(principalOf(request), request.params.app, request.params.call_id);
      return { message: 'Successfully loaded call', call: callView(call) };
    },
  );

  app.get(
    '/apps/:app/calls/:call_id/log',
    { schema: { params: callParams, response: wrapped('log', logSchema) } },
    async (request) => {
      const { call, log } = await records.log(principalOf(request), request.params.app, request.params.call_id);
      return { message: 'Successfully loaded log', log: { call_id: call.id, log } };
    },
  );
}
