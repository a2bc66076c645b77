import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import type { Metrics } from '../../src/metrics/registry.js';

/** The label of a request no route matched (404s and 405s). */
const UNMATCHED = 'unmatched';

/**
 * Observes every response in ferrum_http_request_duration_seconds by route pattern (not raw URL)
 * and status class (2xx, 4xx, …), so the label sets stay bounded whatever clients ask for. Each
 * route gets its own hook, which knows its pattern (`request.routeOptions` builds an object on
 * every read); one hook of the server's observes what no route matched.
 */
export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  const observe = (request: FastifyRequest, reply: FastifyReply, route: string) => {
    const status = `${Math.floor(reply.statusCode / 100)}xx`;
    metrics.httpRequestDuration.observe({ method: request.method, route, status }, reply.elapsedTime / 1000);
    metrics.httpResponses.inc({ status });
  };
  app.addHook('onRoute', (route) => {
    const pattern = route.url;
    // Callback style: no promise per response.
    const observeRoute: onResponseHookHandler = (request, reply, done) => {
      observe(request, reply, pattern);
      done();
    };
    route.onResponse = [...[route.onResponse ?? []].flat(), observeRoute];
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) observe(request, reply, UNMATCHED);
    done();
  });
}
