import { Counter, Histogram, type Registry } from 'prom-client';
import { ROUTE_FORMATS, type CallOutcome, type RouteFormat } from '../types.js';

const OUTCOMES: ReadonlyArray<CallOutcome | 'accepted'> = ['success', 'error', 'timeout', 'accepted'];

/** Calls answered by this controller: `outcome` is how a sync call ended, `accepted` for async calls. */
export class FunctionMetrics {
  private readonly calls: Counter<'format' | 'outcome'>;
  private readonly duration: Histogram<'format'>;

  constructor(registry: Registry) {
    this.calls = new Counter({
      name: 'ferrum_function_calls_total',
      help: 'Function calls by route format and outcome (success, error, timeout; accepted for async calls)',
      labelNames: ['format', 'outcome'] as const,
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'ferrum_function_call_duration_seconds',
      help: 'Duration of sync function calls from request to answer, by route format',
      labelNames: ['format'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    });
    for (const format of ROUTE_FORMATS) {
      for (const outcome of OUTCOMES) this.calls.inc({ format, outcome }, 0);
    }
  }

  accepted(format: RouteFormat): void {
    this.calls.inc({ format, outcome: 'accepted' });
  }

  answered(format: RouteFormat, outcome: CallOutcome, seconds: number): void {
    this.calls.inc({ format, outcome });
    this.duration.observe({ format }, seconds);
  }
}
