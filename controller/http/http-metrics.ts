import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../../src/metrics/registry.js';

/**
 * Observes every response in ferrum_http_request_duration_seconds by route pattern (not raw URL)
 * and status class (2xx, 4xx, …), so the label sets stay bounded whatever clients ask for.
 */
export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  // Callback style: no promise per response.
  app.addHook('onResponse', (request, reply, done) => {
    const status = `${Math.floor(reply.statusCode / 100)}xx`;
    metrics.httpRequestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status },
      reply.elapsedTime / 1000,
    );
    metrics.httpResponses.inc({ status });
    done();
  });
}
