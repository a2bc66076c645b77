import { api, projectPath } from '../api.js';
import { line, stackedBars } from '../chart.js';
import { h, table } from '../dom.js';

const SERIES = [
  { key: 'complete', label: 'complete', className: 'bar-complete' },
  { key: 'error', label: 'error', className: 'bar-error' },
  { key: 'timeout', label: 'timeout', className: 'bar-timeout' },
  { key: 'cancelled', label: 'cancelled', className: 'bar-cancelled' },
];

export async function overviewPage() {
  const history = await api('GET', projectPath('/1', '/history'));
  const outcomes = history.task_outcomes;
  const totals = Object.fromEntries(SERIES.map((s) => [s.key, outcomes.reduce((sum, b) => sum + b[s.key], 0)]));
  const depth = history.queue_depth.map((sample) => ({ time: sample.time, value: sample.total }));
  const latest = history.queue_depth[history.queue_depth.length - 1];
  return h(
    'section',
    {},
    h('h1', {}, 'Overview'),
    h('h2', {}, 'Task outcomes, last hour'),
    h(
      'div',
      { class: 'legend' },
      SERIES.map((s) => h('span', { class: `key ${s.className}` }, `${s.label}: ${totals[s.key]}`)),
    ),
    stackedBars('Tasks finished per minute over the last hour, by outcome', outcomes, SERIES),
    h('h2', {}, 'Queue depth, last hour'),
    depth.length
      ? line('Messages waiting in all queues over the last hour', depth)
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
