import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BoundCounter, BoundHistogram } from '../../src/metrics/bound-metrics.js';

const BUCKETS = [0.001, 0.005, 0.025, 0.1, 0.5, 2.5, 10];
const LABEL_NAMES = ['method', 'route', 'status'] as const;
type Labels = Record<(typeof LABEL_NAMES)[number], string>;

/** Label sets and values, repeats and values beyond the last bucket among them, on a bound bucket and between. */
const OBSERVED: [Labels, number][] = [
  [{ method: 'POST', route: '/r/:app/*', status: '2xx' }, 0.0031],
  [{ method: 'GET', route: '/cache/:id', status: '4xx' }, 0.001],
  [{ method: 'POST', route: '/r/:app/*', status: '2xx' }, 0.2],
  [{ method: 'POST', route: '/r/:app/*', status: '5xx' }, 42],
  [{ method: 'GET', route: 'a "quoted"\\ route\n', status: '2xx' }, 0],
  [{ method: 'POST', route: '/r/:app/*', status: '2xx' }, 10],
];

/** prom-client's Histogram and Counter fed as in production, and the bound ones fed the same, each in a registry of its own. */
function fedRegistries(): { theirs: Registry; ours: Registry } {
  const theirs = new Registry();
  const ours = new Registry();
  const config = { name: 'test_duration_seconds', help: 'Durations', labelNames: LABEL_NAMES, buckets: BUCKETS };
  const counted = { name: 'test_responses_total', help: 'Responses "by" status', labelNames: ['status'] as const };
  const histogram = new Histogram({ ...config, registers: [theirs] });
  const counter = new Counter({ ...counted, registers: [theirs] });
  const bound = new BoundHistogram({ ...config, registers: [ours] });
  const boundCounter = new BoundCounter({ ...counted, registers: [ours] });
  for (const status of ['1xx', '2xx']) {
    counter.inc({ status }, 0);
    boundCounter.series({ status });
  }
  for (const [labels, value] of OBSERVED) {
    histogram.observe(labels, value);
    bound.series(labels).observe(value);
    counter.inc({ status: labels.status });
    boundCounter.series({ status: labels.status }).inc();
  }
  return { theirs, ours };
}

describe('bound metrics', () => {
  it("expose what prom-client's Histogram and Counter expose for the same observations, to the byte", async () => {
    const { theirs, ours } = fedRegistries();
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it("aggregate over a cluster's processes as prom-client's own do", async () => {
    const [a, b] = [fedRegistries(), fedRegistries()];
    const theirs = AggregatorRegistry.aggregate([await a.theirs.getMetricsAsJSON(), await b.theirs.getMetricsAsJSON()]);
    const ours = AggregatorRegistry.aggregate([await a.ours.getMetricsAsJSON(), await b.ours.getMetricsAsJSON()]);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('show a histogram series from its first observation, a counter series from its binding, nothing after a reset', async () => {
    const registry = new Registry();
    const histogram = new BoundHistogram({
      name: 'h',
      help: 'h',
      labelNames: ['a'],
      buckets: [1],
      registers: [registry],
    });
    const counter = new BoundCounter({ name: 'c_total', help: 'c', labelNames: ['a'], registers: [registry] });
    const series = histogram.series({ a: 'x' });
    counter.series({ a: 'x' });
    expect(await registry.metrics()).not.toContain('h_count');
    expect(await registry.metrics()).toContain('c_total{a="x"} 0');
    series.observe(2);
    expect(await registry.metrics()).toContain('h_bucket{le="1",a="x"} 0\nh_bucket{le="+Inf",a="x"} 1');
    registry.resetMetrics();
    expect(await registry.metrics()).not.toMatch(/h_count|c_total\{/);
  });

  it('refuse a label the metric does not have, a value that is not a number, and a counter going down', () => {
    const counter = new BoundCounter({ name: 'c_total', help: 'c', labelNames: ['a'], registers: [] });
    const histogram = new BoundHistogram({ name: 'h', help: 'h', labelNames: ['a'], buckets: [1], registers: [] });
    expect(() => counter.series({ a: 'x', b: 'y' } as { a: string })).toThrow(/no label "b"/);
    expect(() => counter.series({ a: 'x' }).inc(-1)).toThrow(TypeError);
    expect(() => histogram.series({ a: 'x' }).observe(Number.NaN)).toThrow(TypeError);
  });
});
