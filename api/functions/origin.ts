import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FunctionsConfig } from '../../src/core/config.js';
import { fail } from '../../src/core/errors.js';

/** Marks a request that arrived on the functions' own listener (FERRUM_FUNCTIONS_PORT). */
const ON_FUNCTIONS_LISTENER = Symbol('ferrum.functionsListener');

export function markFunctionsListener(raw: IncomingMessage): void {
  (raw as IncomingMessage & { [ON_FUNCTIONS_LISTENER]?: boolean })[ON_FUNCTIONS_LISTENER] = true;
}

/** Whether the request came to the functions' own origin: their listener, or their host name. */
export function onFunctionsOrigin(request: FastifyRequest, settings: Pick<FunctionsConfig, 'host'>): boolean {
  const raw = request.raw as IncomingMessage & { [ON_FUNCTIONS_LISTENER]?: boolean };
  if (raw[ON_FUNCTIONS_LISTENER] === true) return true;
  return settings.host !== undefined && request.hostname.toLowerCase().replace(/\.$/, '') === settings.host;
}

const FUNCTIONS_ORIGIN_PATHS = /^\/(r(\/|\?|$)|health(\?|$))/;

/**
 * The functions' own origin serves function calls (and /health) only: a function's page there
 * must find no dashboard, no API and no session of the platform's on its origin.
 */
export function keepFunctionsOriginToCalls(app: FastifyInstance, settings: Pick<FunctionsConfig, 'host'>): void {
  // A callback hook, not an async one: it runs on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    if (onFunctionsOrigin(request, settings) && !FUNCTIONS_ORIGIN_PATHS.test(request.url))
      done(fail('fn_origin_calls_only'));
    else done();
  });
}

/**
 * Function answers on the platform's own origin (where the dashboard is) are inert: a sandbox
 * CSP gives the page an opaque origin (its script cannot read or act as the dashboard), and a
 * function cannot set cookies there. On the functions' own origin they are left as they are.
 */
export function confineSharedOriginAnswers(app: FastifyInstance, settings: Pick<FunctionsConfig, 'host'>): void {
  // A callback hook, not an async one: it runs on every call, and a promise per call shows.
  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
    if (!onFunctionsOrigin(request, settings)) {
      reply.removeHeader('set-cookie');
      const own = reply.getHeader('content-security-policy');
      reply.header('content-security-policy', own ? `${String(own)}, sandbox` : 'sandbox');
    }
    done(null, payload);
  });
}
