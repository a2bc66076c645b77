import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import type { CounterSeries, HistogramSeries } from '../../src/metrics/bound-metrics.js';
import type { Metrics } from '../../src/metrics/registry.js';

/** The label of a request no route matched (404s and 405s). */
const UNMATCHED = 'unmatched';

/**
 * Observes every response in ferrum_http_request_duration_seconds by route pattern (not raw URL)
 * and status class (2xx, 4xx, …), so the label sets stay bounded whatever clients ask for. Each
 * route gets its own hook, which knows its pattern (`request.routeOptions` builds an object on
 * every read) and keeps its series by method and status class; one hook of the server's observes
 * what no route matched.
 */
export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  const responses: CounterSeries[] = [];
  const observerOf = (route: string) => {
    // By method (Node's parser gives a bounded set of them), then by status / 100.
    const durations = new Map<string, HistogramSeries[]>();
    return (request: FastifyRequest, reply: FastifyReply) => {
      const hundreds = Math.floor(reply.statusCode / 100);
      let byStatus = durations.get(request.method);
      if (!byStatus) durations.set(request.method, (byStatus = []));
      const duration = (byStatus[hundreds] ??= metrics.httpRequestDuration.series({
        method: request.method,
        route,
        status: `${hundreds}xx`,
      }));
      duration.observe(reply.elapsedTime / 1000);
      (responses[hundreds] ??= metrics.httpResponses.series({ status: `${hundreds}xx` })).inc();
    };
  };
  app.addHook('onRoute', (route) => {
    const observe = observerOf(route.url);
    // Callback style: no promise per response.
    const observeRoute: onResponseHookHandler = (request, reply, done) => {
      observe(request, reply);
      done();
    };
    route.onResponse = [...[route.onResponse ?? []].flat(), observeRoute];
  });
  const observeUnmatched = observerOf(UNMATCHED);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) observeUnmatched(request, reply);
    done();
  });
}
