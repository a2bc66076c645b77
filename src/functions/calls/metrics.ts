import type { Registry } from 'prom-client';
import { BoundCounter, BoundHistogram, type CounterSeries, type HistogramSeries } from '../../metrics/bound-metrics.js';
import { ROUTE_FORMATS, type CallOutcome, type RouteFormat } from '../types.js';

const OUTCOMES: ReadonlyArray<CallOutcome | 'accepted'> = ['success', 'error', 'timeout', 'accepted'];

/** Calls answered by this controller: `outcome` is how a sync call ended, `accepted` for async calls. */
export class FunctionMetrics {
  private readonly calls: BoundCounter<'format' | 'outcome'>;
  private readonly duration: BoundHistogram<'format'>;
  /** Each format's series of ferrum_function_calls_total by outcome, made at 0 from the start. */
  private readonly callSeries = new Map<RouteFormat, Map<CallOutcome | 'accepted', CounterSeries>>();
  /** Each format's ferrum_function_call_duration_seconds series, made at its first sync call. */
  private readonly durationSeries = new Map<RouteFormat, HistogramSeries>();

  constructor(registry: Registry) {
    this.calls = new BoundCounter({
      name: 'ferrum_function_calls_total',
      help: 'Function calls by route format and outcome (success, error, timeout; accepted for async calls)',
      labelNames: ['format', 'outcome'] as const,
      registers: [registry],
    });
    this.duration = new BoundHistogram({
      name: 'ferrum_function_call_duration_seconds',
      help: 'Duration of sync function calls from request to answer, by route format',
      labelNames: ['format'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    });
    for (const format of ROUTE_FORMATS) {
      this.callSeries.set(
        format,
        new Map(OUTCOMES.map((outcome) => [outcome, this.calls.series({ format, outcome })])),
      );
    }
  }

  accepted(format: RouteFormat): void {
    this.callsOf(format, 'accepted').inc();
  }

  answered(format: RouteFormat, outcome: CallOutcome, seconds: number): void {
    this.callsOf(format, outcome).inc();
    let duration = this.durationSeries.get(format);
    if (!duration) this.durationSeries.set(format, (duration = this.duration.series({ format })));
    duration.observe(seconds);
  }

  private callsOf(format: RouteFormat, outcome: CallOutcome | 'accepted'): CounterSeries {
    return this.callSeries.get(format)?.get(outcome) ?? this.calls.series({ format, outcome });
  }
}
