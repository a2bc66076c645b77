import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiPlugin } from '../type-provider.js';
import { quotasOf } from '../../src/auth/quotas.js';
import { forbidden, notFound } from '../../src/core/errors.js';
import { newUnguessableId } from '../../src/core/ids.js';
import type { CallReply } from '../../src/functions/calls/call-message.js';
import { CallReplies } from '../../src/functions/calls/call-replies.js';
import { SUSPENDED_MESSAGE } from '../../src/functions/calls/call-store.js';
import { FunctionCalls } from '../../src/functions/calls/function-calls.js';
import { invocationOf } from '../../src/functions/calls/invocation.js';
import { FunctionMetrics } from '../../src/functions/calls/metrics.js';
import { RouteCache } from '../../src/functions/routes/route-cache.js';
import { checkRouteSecret } from '../../src/functions/routes/route-secret.js';
import type { Route } from '../../src/functions/types.js';
import type { PluginOptions } from '../context.js';
import { callerHeaders, callerUrl } from './caller-request.js';
import { errorBody, installFunctionErrors } from './errors.js';
import { confineSharedOriginAnswers } from './origin.js';

export const CALL_ID_HEADER = 'Fn-Call-Id';
const DEFAULT_CONTENT_TYPE = 'text/plain; charset=utf-8';
/** Headers a function's answer may not set: the server frames the response itself. */
const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);
/** An HTTP token (RFC 9110): what a header name may be made of. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The route's headers as defaults, the function's own over them. */
function sendResult(reply: FastifyReply, route: Route, result: CallReply): FastifyReply {
  if (result.outcome !== 'success') {
    // A refused call (503) says when to try again.
    return reply
      .code(result.status)
      .headers(result.headers)
      .send(errorBody(result.errorMessage ?? 'The function failed'));
  }
  const invalid = Object.keys(result.headers).find((name) => !HEADER_NAME.test(name));
  if (invalid !== undefined)
    return reply
      .code(502)
      .send(errorBody(`The function answered with an invalid header name: ${JSON.stringify(invalid)}`));
  const headers: Record<string, string> = { 'content-type': DEFAULT_CONTENT_TYPE };
  addAnswerHeaders(headers, route.headers);
  addAnswerHeaders(headers, result.headers);
  return reply.code(result.status).headers(headers).send(result.body);
}

function addAnswerHeaders(headers: Record<string, string>, added: Record<string, string>): void {
  for (const name in added) {
    const lower = name.toLowerCase();
    if (!FRAMING_HEADERS.has(lower)) headers[lower] = added[name]!;
  }
}

/**
 * Calls of functions: any method on /r/{app}{path}. The body arrives raw, whatever its type;
 * sync routes answer with the function's output, async ones with 202 and the call id.
 */
export const functionCallsApi: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  installFunctionErrors(app);
  const settings = ctx.config.functions;
  confineSharedOriginAnswers(app, settings);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: settings.bodyLimitBytes }, (_request, body, done) =>
    done(null, body),
  );

  const stores = ctx.functions;
  const replies = new CallReplies(ctx.bus, stores.keys, stores.replyBodies);
  await replies.start();
  const routes = new RouteCache(stores.routes, stores.notices, settings.routeCacheMs);
  const stopRoutes = await routes.start(ctx.bus);
  app.addHook('onClose', async () => {
    await stopRoutes();
    await replies.close();
  });
  const calls = new FunctionCalls(stores.calls, stores.queue, replies, settings, ctx.localFunctions);
  const metrics = new FunctionMetrics(ctx.metrics.registry);

  async function call(request: FastifyRequest<{ Params: { app: string; '*'?: string } }>, reply: FastifyReply) {
    const started = performance.now();
    // `/r/app/path/` is the route `/path`, as the router ignores trailing slashes elsewhere.
    const path = `/${request.params['*'] ?? ''}`.replace(/(.)\/+$/, '$1');
    const { app: found, route, suspended } = await routes.load(request.params.app, path);
    if (!found) throw notFound('App not found');
    if (!route) throw notFound('Route not found');
    if (suspended) throw forbidden(SUSPENDED_MESSAGE);
    await checkRouteSecret(route, request.headers.authorization);
    const callId = newUnguessableId();
    const invocation = invocationOf(
      { app: found, route },
      {
        callId,
        method: request.method,
        requestUrl: callerUrl(request),
        headers: callerHeaders(request),
        body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      },
    );
    reply.header(CALL_ID_HEADER, callId);
    const project = await ctx.authenticator.getProject(found.projectId);
    const quotas = quotasOf(project ?? { quotas: {} }, ctx.config.quotas);
    // Its record and log will count toward the project's stored bytes: none once they are full.
    await stores.calls.bytes.checkRoom(found.projectId, quotas.stored_bytes);
    if (route.type === 'async') {
      await calls.startAsync(invocation, found.projectId, quotas.queued_calls);
      metrics.accepted(route.format);
      return reply.code(202).send({ call_id: callId });
    }
    const result = await calls.runSync(invocation, found.projectId);
    metrics.answered(route.format, result.outcome, (performance.now() - started) / 1000);
    return sendResult(reply, route, result);
  }

  const params = {
    type: 'object',
    required: ['app'],
    properties: { app: { type: 'string' }, '*': { type: 'string' } },
  };
  app.all('/:app', { schema: { params } }, call);
  app.all('/:app/*', { schema: { params } }, call);
};
