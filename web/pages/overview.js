// @ts-check
import { identity } from '../client.js';
import { line, stackedBars } from '../chart.js';
import { h, table } from '../dom.js';

const SERIES = [
  { key: 'complete', label: 'complete', className: 'bar-complete' },
  { key: 'error', label: 'error', className: 'bar-error' },
  { key: 'timeout', label: 'timeout', className: 'bar-timeout' },
  { key: 'cancelled', label: 'cancelled', className: 'bar-cancelled' },
];
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

export async function overviewPage() {
  const history = await identity.history();
  const outcomes = history.task_outcomes;
  const totals = Object.fromEntries(SERIES.map((s) => [s.key, outcomes.reduce((sum, b) => sum + b[s.key], 0)]));
  const depth = history.queue_depth.map((sample) => ({ time: sample.time, value: sample.total }));
  const latest = history.queue_depth[history.queue_depth.length - 1];
  // Both charts span the same hour, ending with the server's last minute bucket.
  const lastBucket = outcomes.length ? new Date(outcomes[outcomes.length - 1].time).getTime() : Date.now();
  const range = { from: lastBucket + MINUTE_MS - HOUR_MS, to: lastBucket + MINUTE_MS };
  const shownDepth = depth.filter((p) => new Date(p.time).getTime() >= range.from);
  return h(
    'section',
    {},
    h('h1', {}, 'Overview'),
    h('h2', {}, 'Last hour'),
    h('h3', {}, 'Task outcomes per minute'),
    h(
      'div',
      { class: 'legend' },
      SERIES.map((s) => h('span', { class: `key ${s.className}` }, `${s.label}: ${totals[s.key]}`)),
    ),
    stackedBars('Tasks finished per minute over the last hour, by outcome', outcomes, SERIES, range, MINUTE_MS),
    h('h3', {}, 'Queue depth'),
    shownDepth.length
      ? line('Messages waiting in all queues over the last hour', shownDepth, range)
      : h(
          'p',
          { class: 'empty' },
          `No samples yet: queue depth is sampled every ${history.sample_interval_seconds} s.`,
        ),
    latest && Object.keys(latest.queues).length
      ? table(
          ['Deepest queues now', 'Messages'],
          Object.entries(latest.queues).map(([name, size]) => [
            h('a', { href: `#/queues/${encodeURIComponent(name)}` }, name),
            String(size),
          ]),
        )
      : null,
  );
}
