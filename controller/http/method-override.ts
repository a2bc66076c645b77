import type { IncomingMessage } from 'node:http';

/** The methods a POST may stand for through X-HTTP-Method-Override (iron_mq_java sends DELETE and PATCH so). */
const OVERRIDABLE = new Set(['PUT', 'PATCH', 'DELETE', 'GET']);

/**
 * fastify's `rewriteUrl` option: a POST carrying `X-HTTP-Method-Override: DELETE` (PUT, PATCH,
 * GET) is routed, parsed and answered as that method; the header is ignored on any other
 * method and with any other value.
 *
 * Why here: fastify 5 calls rewriteUrl with the raw request just before the router looks up
 * `req.method` (fastify.js wrapRouting → preRouting), for real connections and for inject()
 * alike. An onRequest hook runs after routing (too late: the POST would already be a 404/405),
 * and a serverFactory wrapper is skipped by inject(). The URL itself is never changed.
 */
export function applyMethodOverride(this: unknown, req: IncomingMessage): string {
  if (req.method === 'POST') {
    const asked = req.headers['x-http-method-override'];
    if (typeof asked === 'string') {
      const method = asked.trim().toUpperCase();
      if (OVERRIDABLE.has(method)) req.method = method;
    }
  }
  return req.url ?? '/';
}
