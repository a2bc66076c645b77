import { Counter, Histogram, type Registry } from 'prom-client';
import { ROUTE_FORMATS, type CallOutcome, type RouteFormat } from '../types.js';

const OUTCOMES: ReadonlyArray<CallOutcome | 'accepted'> = ['success', 'error', 'timeout', 'accepted'];

/** A metric's labelled child (prom-client's labels()): its calls take no label object of their own. */
type Child<Metric extends { labels(...values: string[]): unknown }> = ReturnType<Metric['labels']>;

/**
 * Calls answered by this controller: `outcome` is how a sync call ended, `accepted` for async
 * calls. Each format's children are made once: a hot call counts through them, without a label
 * object and a closure of its own per metric (prom-client still checks and hashes the labels).
 */
export class FunctionMetrics {
  private readonly counts = new Map<RouteFormat, Map<CallOutcome | 'accepted', Child<Counter<'format' | 'outcome'>>>>();
  private readonly durations = new Map<RouteFormat, Child<Histogram<'format'>>>();

  constructor(registry: Registry) {
    const calls = new Counter({
      name: 'ferrum_function_calls_total',
      help: 'Function calls by route format and outcome (success, error, timeout; accepted for async calls)',
      labelNames: ['format', 'outcome'] as const,
      registers: [registry],
    });
    const duration = new Histogram({
      name: 'ferrum_function_call_duration_seconds',
      help: 'Duration of sync function calls from request to answer, by route format',
      labelNames: ['format'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    });
    for (const format of ROUTE_FORMATS) {
      this.durations.set(format, duration.labels(format));
      const byOutcome = new Map(OUTCOMES.map((outcome) => [outcome, calls.labels(format, outcome)] as const));
      for (const child of byOutcome.values()) child.inc(0);
      this.counts.set(format, byOutcome);
    }
  }

  accepted(format: RouteFormat): void {
    this.counts.get(format)!.get('accepted')!.inc();
  }

  answered(format: RouteFormat, outcome: CallOutcome, seconds: number): void {
    this.counts.get(format)!.get(outcome)!.inc();
    this.durations.get(format)!.observe(seconds);
  }
}
