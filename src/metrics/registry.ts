import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { BoundCounter, BoundHistogram } from './bound-metrics.js';
import { VERSION } from '../core/version.js';
import { LeadershipGauge } from './leadership.js';
import { perRegistry } from './per-registry.js';

/** The metrics of one Ferrum process: prom-client's default metrics plus Ferrum's own. */
export interface Metrics {
  registry: Registry;
  httpRequestDuration: BoundHistogram<'method' | 'route' | 'status'>;
  httpResponses: BoundCounter<'status'>;
  leadership: LeadershipGauge;
  redisErrors: Counter<'kind'>;
  /** What /metrics answers: this registry, or with HTTP workers the installation's (see MetricsScrape). */
  scrape(): Promise<string>;
}

/**
 * How /metrics reads a process's figures: by default its own registry; an HTTP worker of a
 * `ferrum start` with FERRUM_WORKERS > 1 asks its primary for every process's, aggregated.
 */
export type MetricsScrape = (own: Registry) => Promise<string>;

/**
 * prom-client's default gauges whose names end in _total, which Prometheus keeps for counters
 * (`promtool check metrics` flags them): their per-type siblings (…_active_handles{type}, …) remain.
 */
const GAUGES_NAMED_AS_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * How often the event loop's delay is sampled for the ferrum_nodejs_eventloop_lag_* gauges.
 * prom-client's 10 ms is a timer that wakes an idle server 100 times a second: with function
 * calls at tens a second that was more wake-ups than the calls made. A delay longer than this
 * is still caught by the sample it holds up.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/** A process's registry: Node's default metrics and ferrum_build_info. */
export function createProcessRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'ferrum_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  for (const name of GAUGES_NAMED_AS_COUNTERS) registry.removeSingleMetric(`ferrum_${name}`);
  new Gauge({
    name: 'ferrum_build_info',
    help: 'Always 1; the labels say which Ferrum build and Node.js this process runs',
    labelNames: ['version', 'node_version'] as const,
    registers: [registry],
    // Aggregated over HTTP workers (controller/cluster/): still 1, not one per process.
    aggregator: 'max',
  }).set({ version: VERSION, node_version: process.versions.node }, 1);
  return registry;
}

/** The status classes whose series ferrum_http_responses_total has from the start (index: the status / 100 - 1). */
export const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

export function createMetrics(scrape: MetricsScrape = (own) => own.metrics()): Metrics {
  const registry = createProcessRegistry();
  const httpRequestDuration = new BoundHistogram({
    name: 'ferrum_http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route pattern and status class',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.025, 0.1, 0.5, 2.5, 10],
    registers: [registry],
  });
  const httpResponses = new BoundCounter({
    name: 'ferrum_http_responses_total',
    help: 'HTTP responses by status class (1xx … 5xx), every class from 0: the error-rate alert needs no route',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  for (const status of STATUS_CLASSES) httpResponses.series({ status });
  const redisErrors = redisErrorsCounter(registry);
  return {
    registry,
    httpRequestDuration,
    httpResponses,
    leadership: new LeadershipGauge(registry),
    redisErrors,
    scrape: () => scrape(registry),
  };
}

/**
 * Kinds whose series exist from the start, so that rate() sees their first error: the ones an
 * outage brings (see redisErrorKind); rarer kinds appear when first seen.
 */
const COMMON_REDIS_ERROR_KINDS = ['unavailable', 'timeout', 'ECONNREFUSED', 'ECONNRESET', 'OOM', 'READONLY'];

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
  const counter = perRegistry(registry, 'redis-errors', create);
  for (const kind of COMMON_REDIS_ERROR_KINDS) counter.inc({ kind }, 0);
  return counter;
}
