import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** The metrics of one Ferrum process: prom-client's default metrics plus Ferrum's own. */
export interface Metrics {
  registry: Registry;
  httpRequestDuration: Histogram<'method' | 'route' | 'status_code'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'ferrum_' });
  const httpRequestDuration = new Histogram({
    name: 'ferrum_http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return { registry, httpRequestDuration };
}
