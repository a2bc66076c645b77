import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiPlugin } from '../type-provider.js';
import type { CallReply } from '../../src/functions/calls/call-message.js';
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

/** Puts the call's id on its answer once it has one (built here: an inline arrow would be renamed per call under esbuild's keepNames). */
function callIdHeaderSetter(reply: FastifyReply): (callId: string) => void {
  return (id) => void reply.header(CALL_ID_HEADER, id);
}

function addAnswerHeaders(headers: Record<string, string>, added: Record<string, string>): void {
  for (const name in added) {
    const lower = name.toLowerCase();
    if (!FRAMING_HEADERS.has(lower)) headers[lower] = added[name]!;
  }
}

/**
 * Calls of functions: any method on /r/{app}{path}, one FunctionCalls.invoke each. The body
 * arrives raw, whatever its type; sync routes answer with the function's output, async ones
 * with 202 and the call id.
 */
export const functionCallsApi: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  installFunctionErrors(app);
  const settings = ctx.config.functions;
  confineSharedOriginAnswers(app, settings);
  app.removeAllContentTypeParsers();
  // The limit is the routes' own (below), which the large-body gate reads too: one limit for the
  // 413 of a declared length and the parser's.
  const raw = { parseAs: 'buffer' } as const;
  const keepRawBody = (_request: FastifyRequest, body: Buffer, done: (error: null, body: Buffer) => void) =>
    done(null, body);
  app.addContentTypeParser('*', raw, keepRawBody);
  // The same parser for every type again, as a pattern: fastify remembers the parser a pattern
  // found for a type, while the catch-all above is looked up anew, the type parsed, on every call.
  app.addContentTypeParser(/^/, raw, keepRawBody);

  async function call(request: FastifyRequest<{ Params: { app: string; '*'?: string } }>, reply: FastifyReply) {
    const {
      callId,
      route,
      reply: answer,
    } = await ctx.functions.functionCalls.invoke({
      appName: request.params.app,
      path: request.params['*'] ?? '',
      authorization: request.headers.authorization,
      method: request.method,
      requestUrl: callerUrl(request),
      headers: callerHeaders(request),
      body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      named: callIdHeaderSetter(reply),
    });
    if (!answer) return reply.code(202).send({ call_id: callId });
    return sendResult(reply, route, answer);
  }

  // No params schema: the router gives both as strings, and a check of them per call costs.
  const limit = { bodyLimit: settings.bodyLimitBytes };
  app.all('/:app', limit, call);
  app.all('/:app/*', limit, call);
};
