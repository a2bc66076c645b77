// @ts-check
import { mq } from '../client.js';
import { confirmedButton, field, form, h, table, toast } from '../dom.js';
import { perSecond } from '../rates.js';
import { deadLetters, messagesSection } from './queue-messages.js';
import { ratesOf } from './queues.js';
/** @typedef {import('../types').Queue} Queue */

/** How often a queue's page reads it again for its rates. */
const RATES_MS = 2000;

/** @param {(hash: string) => void} navigate @param {string} name */
export async function queuePage(navigate, name) {
  const queue = await mq.get(name);
  const reload = () => navigate(`#/queues/${encodeURIComponent(name)}`);
  const rates = h('dd', { id: 'queue-rates' }, ratesText(queue));
  keepRatesFresh(name, rates);
  return h(
    'section',
    {},
    h('p', {}, h('a', { href: '#/queues' }, '← Queues')),
    h('h1', {}, queue.name),
    facts(queue, rates),
    queue.push ? pushFacts(queue.push) : null,
    queue.alerts
      ? [
          h('h2', {}, 'Alerts'),
          table(
            ['Type', 'Trigger', 'Direction', 'Target queue', 'Snooze'],
            queue.alerts.map((a) => [a.type, String(a.trigger), a.direction || 'asc', a.queue, `${a.snooze || 0} s`]),
          ),
        ]
      : null,
    messagesSection(name, reload),
    queue.dead_letter ? deadLetters(name, queue.dead_letter.queue_name) : null,
    settingsForm(queue, reload),
    h('h2', {}, 'Delete'),
    confirmedButton(
      'Delete queue',
      `Delete queue ${name} and all its messages? This cannot be undone.`,
      async () => {
        await mq.remove(name);
        toast(`Deleted queue ${name}`);
        navigate('#/queues');
      },
      { danger: true },
    ),
  );
}

/** This read's rates, or what to expect before there are any. @param {Queue} queue */
function ratesText(queue) {
  const rates = ratesOf(queue);
  return rates ? `${perSecond(rates.in)} / ${perSecond(rates.out)}` : 'measuring…';
}

/**
 * Reads the queue again every few seconds while its page is shown, for its rates.
 * @param {string} name @param {HTMLElement} rates
 */
function keepRatesFresh(name, rates) {
  const timer = setInterval(async () => {
    const queue = rates.isConnected ? await mq.get(name).catch(() => null) : null;
    if (!queue) return clearInterval(timer);
    rates.textContent = ratesText(queue);
  }, RATES_MS);
}

/** @param {Queue} queue @param {HTMLElement} rates */
function facts(queue, rates) {
  /** @type {[string, string | HTMLElement][]} */
  const rows = [
    ['Type', queue.type || 'pull'],
    ['Ready', String(queue.ready ?? '')],
    ['Reserved', String(queue.reserved ?? '')],
    ['Delayed', String(queue.delayed ?? '')],
    ['Size', String(queue.size)],
    ['Total posted', String(queue.total_messages)],
    ['Rates (in / out)', rates],
    ['Message timeout', `${queue.message_timeout} s`],
    ['Message expiration', `${queue.message_expiration} s`],
    [
      'Dead letter',
      queue.dead_letter
        ? `${queue.dead_letter.queue_name} after ${queue.dead_letter.max_reservations} reservations`
        : '—',
    ],
  ];
  return h(
    'dl',
    { class: 'facts', id: 'queue-facts' },
    rows.map(([term, value]) => [h('dt', {}, term), typeof value === 'string' ? h('dd', {}, value) : value]),
  );
}

/** @param {NonNullable<Queue['push']>} push */
function pushFacts(push) {
  return [
    h('h2', {}, 'Push delivery'),
    h(
      'dl',
      { class: 'facts', id: 'push-settings' },
      h('dt', {}, 'Retries'),
      h('dd', {}, String(push.retries ?? '')),
      h('dt', {}, 'Delay between retries'),
      h('dd', {}, `${push.retries_delay ?? ''} s`),
      h('dt', {}, 'Error queue'),
      h('dd', {}, push.error_queue || '—'),
    ),
    h('h2', {}, 'Subscribers'),
    table(
      ['Name', 'URL', 'Headers'],
      (push.subscribers || []).map((s) => [s.name, s.url, Object.keys(s.headers || {}).join(', ')]),
      { empty: 'No subscribers.' },
    ),
  ];
}

/** Edits the queue's timeouts (PATCH: what is not given stays). @param {Queue} queue @param {() => void} reload */
function settingsForm(queue, reload) {
  const seconds = { type: 'number', min: '1', step: '1', required: true };
  return [
    h('h2', {}, 'Settings'),
    form(
      [
        field('Message timeout (s)', { ...seconds, name: 'message_timeout', value: String(queue.message_timeout) }),
        field('Message expiration (s)', {
          ...seconds,
          name: 'message_expiration',
          value: String(queue.message_expiration),
        }),
      ],
      'Save settings',
      async (values) => {
        if (!confirm(`Change the settings of ${queue.name}?`)) return;
        await mq.update(queue.name, {
          message_timeout: Number(values.message_timeout),
          message_expiration: Number(values.message_expiration),
        });
        toast(`Saved settings of ${queue.name}`);
        reload();
      },
      { 'aria-label': 'Queue settings' },
    ),
  ];
}
