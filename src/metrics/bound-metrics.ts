import type { Metric, Registry } from 'prom-client';

/**
 * A counter and a histogram for the per-request path, whose label sets are bound once:
 * `series(labels)` finds (or makes) a label set's series, which its caller keeps, and an
 * inc/observe of a kept series hashes, validates and copies nothing. prom-client hashes the
 * label object into a string and looks it up on every inc and observe (some 1-2 µs each: four a
 * hot function call). Their /metrics lines, and the JSON a cluster's primary aggregates, are
 * prom-client's own Counter's and Histogram's to the byte (bound-metrics.test.ts).
 */

interface BoundMetricConfig<T extends string> {
  name: string;
  help: string;
  labelNames: readonly T[];
  registers: Registry[];
}

type Labels<T extends string> = Record<T, string>;

/** A label set's key: its values in the metric's label order (a value holds no NUL). */
function keyOf<T extends string>(labelNames: readonly T[], labels: Labels<T>): string {
  return labelNames.map((name) => labels[name]).join('\0');
}

function checkLabels<T extends string>(name: string, labelNames: readonly T[], labels: Labels<T>): void {
  for (const label of Object.keys(labels))
    if (!labelNames.includes(label as T)) throw new Error(`${name} has no label "${label}"`);
}

/** The series of `labels` in `all`, made (by `make`, from a copy of the labels) and kept the first time. */
function seriesOf<T extends string, S>(
  all: Map<string, S>,
  name: string,
  labelNames: readonly T[],
  labels: Labels<T>,
  make: (labels: Record<string, string>) => S,
): S {
  const key = keyOf(labelNames, labels);
  let series = all.get(key);
  if (!series) {
    checkLabels(name, labelNames, labels);
    series = make({ ...labels });
    all.set(key, series);
  }
  return series;
}

/** Registered as prom-client's own metrics are: the registry reads name, type, get() and reset(). */
function register(metric: object, registers: Registry[]): void {
  for (const registry of registers) registry.registerMetric(metric as Metric);
}

export class CounterSeries {
  value = 0;

  constructor(readonly labels: Record<string, string>) {}

  inc(by = 1): void {
    if (!(by >= 0) || !Number.isFinite(by)) throw new TypeError(`A counter cannot grow by ${by}`);
    this.value += by;
  }
}

/** A counter with labels, as prom-client's Counter exposes it. */
export class BoundCounter<T extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'counter';
  readonly aggregator = 'sum';
  private readonly labelNames: readonly T[];
  private all = new Map<string, CounterSeries>();

  constructor(config: BoundMetricConfig<T>) {
    ({ name: this.name, help: this.help, labelNames: this.labelNames } = config);
    register(this, config.registers);
  }

  /** The label set's series (made at 0 the first time, so that it shows before its first inc). */
  series(labels: Labels<T>): CounterSeries {
    return seriesOf(this.all, this.name, this.labelNames, labels, (copy) => new CounterSeries(copy));
  }

  inc(labels: Labels<T>, by = 1): void {
    this.series(labels).inc(by);
  }

  async get() {
    return {
      help: this.help,
      name: this.name,
      type: this.type,
      values: [...this.all.values()].map(({ value, labels }) => ({ value, labels })),
      aggregator: this.aggregator,
    };
  }

  reset(): void {
    this.all = new Map();
  }
}

export class HistogramSeries {
  /** Observations per bucket (not cumulative); one beyond the last bound is only counted. */
  readonly buckets: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Record<string, string>,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const { bounds } = this;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.buckets[i]!++;
        break;
      }
    }
    this.sum += value;
    this.count += 1;
  }
}

interface BucketValue {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
  exemplar: null | undefined;
}

/** A histogram with labels, as prom-client's Histogram (without exemplars) exposes it. */
export class BoundHistogram<T extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly labelNames: readonly T[];
  private readonly bounds: readonly number[];
  private all = new Map<string, HistogramSeries>();

  constructor(config: BoundMetricConfig<T> & { buckets: readonly number[] }) {
    ({ name: this.name, help: this.help, labelNames: this.labelNames } = config);
    this.bounds = [...config.buckets];
    register(this, config.registers);
  }

  /** The label set's series; it shows from its first observation on. */
  series(labels: Labels<T>): HistogramSeries {
    return seriesOf(this.all, this.name, this.labelNames, labels, (copy) => new HistogramSeries(copy, this.bounds));
  }

  observe(labels: Labels<T>, value: number): void {
    this.series(labels).observe(value);
  }

  /** The lines prom-client's Histogram.getForPromString gives: per series its buckets (cumulative), +Inf, sum and count. */
  async getForPromString() {
    const bucket = `${this.name}_bucket`;
    const values: BucketValue[] = [];
    for (const series of this.all.values()) {
      if (series.count === 0) continue;
      const { labels } = series;
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += series.buckets[i]!;
        values.push({ labels: { le }, sharedLabels: labels, value: cumulative, metricName: bucket, exemplar: null });
      });
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: labels, value: series.count, metricName: bucket, exemplar: null },
        { labels: {}, sharedLabels: labels, value: series.sum, metricName: `${this.name}_sum`, exemplar: undefined },
        {
          labels: {},
          sharedLabels: labels,
          value: series.count,
          metricName: `${this.name}_count`,
          exemplar: undefined,
        },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** As prom-client's Histogram.get: each value's labels with its series' labels in them. */
  async get() {
    const data = await this.getForPromString();
    const values = data.values.map(({ sharedLabels, labels, ...rest }) => ({
      ...rest,
      labels: { ...labels, ...sharedLabels },
    }));
    return { ...data, values };
  }

  reset(): void {
    this.all = new Map();
  }
}
