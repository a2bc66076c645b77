// @ts-check
import { session } from '../api.js';
import { mq } from '../client.js';
import { field, form, h, table, toast } from '../dom.js';
import { perSecond, recordRates } from '../rates.js';
/** @typedef {import('../types').Queue} Queue */

const PER_PAGE = 30;

/** The queue's rates, recorded with this read (see rates.js). @param {Queue} queue */
export const ratesOf = (queue) => recordRates(`${session.projectId}/${queue.name}`, queue);

/** @param {(hash: string) => void} navigate @param {string | undefined} _id @param {URLSearchParams} params */
export async function queuesPage(navigate, _id, params) {
  const previous = params.get('previous') || '';
  const { queues } = await mq.list({ per_page: PER_PAGE, previous });
  /** @type {Queue[]} */
  const details = await Promise.all(
    queues.map((queue) => mq.get(queue.name).catch(() => /** @type {Queue} */ (/** @type {unknown} */ (queue)))),
  );
  const last = queues[queues.length - 1];
  return h(
    'section',
    {},
    h('h1', {}, 'Queues'),
    table(['Name', 'Type', 'Ready', 'Reserved', 'Delayed', 'Total posted', 'In', 'Out'], details.map(queueRow), {
      empty: 'No queues yet: post a message to create one.',
    }),
    h('p', { class: 'hint' }, 'In and out are messages per second over the last minute this page was open.'),
    h(
      'nav',
      { class: 'pager', 'aria-label': 'Pages' },
      previous ? h('a', { href: '#/queues' }, '« First page') : null,
      queues.length === PER_PAGE && last
        ? h('a', { href: `#/queues?previous=${encodeURIComponent(last.name)}` }, 'Next page »')
        : null,
    ),
    h('h2', {}, 'Post to a queue'),
    form(
      [
        field('Queue name', { name: 'queue', required: true }),
        field('Message body', { name: 'body', required: true, multiline: true }),
      ],
      'Post message',
      async ({ queue, body }) => {
        await mq.post(queue, [body]);
        toast(`Posted to ${queue}`);
        navigate(`#/queues/${encodeURIComponent(queue)}`);
      },
    ),
  );
}

/** @param {Queue} queue */
function queueRow(queue) {
  const rates = queue.size === undefined ? null : ratesOf(queue);
  const count = (/** @type {number | undefined} */ n) => (n === undefined ? '' : String(n));
  return [
    h('a', { href: `#/queues/${encodeURIComponent(queue.name)}` }, queue.name),
    queue.type || 'pull',
    count(queue.ready),
    count(queue.reserved),
    count(queue.delayed),
    count(queue.total_messages),
    perSecond(rates?.in),
    perSecond(rates?.out),
  ];
}
