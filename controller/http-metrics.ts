import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../src/metrics/registry.js';

/** Observes every response in ferrum_http_request_duration_seconds by route pattern, not raw URL. */
export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequestDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
}
