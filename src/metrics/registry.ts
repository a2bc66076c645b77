import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { VERSION } from '../core/version.js';
import { LeadershipGauge } from './leadership.js';
import { perRegistry } from './per-registry.js';

/** The metrics of one Ferrum process: prom-client's default metrics plus Ferrum's own. */
export interface Metrics {
  registry: Registry;
  httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  leadership: LeadershipGauge;
  redisErrors: Counter<'kind'>;
}

/** A process's registry: Node's default metrics and ferrum_build_info. */
export function createProcessRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'ferrum_' });
  new Gauge({
    name: 'ferrum_build_info',
    help: 'Always 1; the labels say which Ferrum build and Node.js this process runs',
    labelNames: ['version', 'node_version'] as const,
    registers: [registry],
  }).set({ version: VERSION, node_version: process.versions.node }, 1);
  return registry;
}

export function createMetrics(): Metrics {
  const registry = createProcessRegistry();
  const httpRequestDuration = new Histogram({
    name: 'ferrum_http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route pattern and status class',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.025, 0.1, 0.5, 2.5, 10],
    registers: [registry],
  });
  const redisErrors = redisErrorsCounter(registry);
  return { registry, httpRequestDuration, leadership: new LeadershipGauge(registry), redisErrors };
}

/**
 * ferrum_redis_errors_total of a registry, by kind (see redisErrorKind): one per registry, as
 * the all-in-one process's controller and runner share one.
 */
export function redisErrorsCounter(registry: Registry): Counter<'kind'> {
  const create = () =>
    new Counter({
      name: 'ferrum_redis_errors_total',
      help: 'Redis errors this process saw: lost connections by system error code, and commands that failed (timeout, unavailable, OOM, …)',
      labelNames: ['kind'] as const,
      registers: [registry],
    });
  return perRegistry(registry, 'redis-errors', create);
}
