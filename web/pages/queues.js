import { api, projectPath } from '../api.js';
import { field, form, h, table, toast } from '../dom.js';

const PER_PAGE = 30;
const mq = (rest) => projectPath('/3', rest);

export async function queuesPage(navigate, _id, params) {
  const previous = params.get('previous') || '';
  const query = new URLSearchParams({ per_page: String(PER_PAGE) });
  if (previous) query.set('previous', previous);
  const { queues } = await api('GET', mq(`/queues?${query}`));
  const details = await Promise.all(
    queues.map((queue) =>
      api('GET', mq(`/queues/${encodeURIComponent(queue.name)}`)).then(
        (r) => r.queue,
        () => queue,
      ),
    ),
  );
  const rows = details.map((queue) => [
    h('a', { href: `#/queues/${encodeURIComponent(queue.name)}` }, queue.name),
    queue.type || 'pull',
    String(queue.size ?? ''),
    String(queue.total_messages ?? ''),
  ]);
  const last = queues[queues.length - 1];
  return h(
    'section',
    {},
    h('h1', {}, 'Queues'),
    table(['Name', 'Type', 'Size', 'Total messages'], rows, { empty: 'No queues yet: post a message to create one.' }),
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
        await api('POST', mq(`/queues/${encodeURIComponent(queue)}/messages`), { messages: [{ body }] });
        toast(`Posted to ${queue}`);
        navigate(`#/queues/${encodeURIComponent(queue)}`);
      },
    ),
  );
}

export async function queuePage(navigate, name) {
  const base = `/queues/${encodeURIComponent(name)}`;
  const { queue } = await api('GET', mq(base));
  const peeked = h('div', { id: 'peeked' });
  const peek = async () => {
    const { messages } = await api('GET', mq(`${base}/messages?n=100`));
    peeked.replaceChildren(
      table(
        ['Id', 'Body', 'Reserved count'],
        messages.map((m) => [h('code', {}, m.id), h('pre', {}, m.body), String(m.reserved_count ?? 0)]),
        {
          empty: 'No messages available.',
          caption: `Next ${messages.length} message(s), not reserved`,
        },
      ),
    );
  };
  const subscribers = (queue.push && queue.push.subscribers) || [];
  return h(
    'section',
    {},
    h('p', {}, h('a', { href: '#/queues' }, '← Queues')),
    h('h1', {}, queue.name),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Type'),
      h('dd', {}, queue.type || 'pull'),
      h('dt', {}, 'Size'),
      h('dd', {}, String(queue.size)),
      h('dt', {}, 'Total messages'),
      h('dd', {}, String(queue.total_messages)),
      h('dt', {}, 'Message timeout'),
      h('dd', {}, `${queue.message_timeout} s`),
      h('dt', {}, 'Message expiration'),
      h('dd', {}, `${queue.message_expiration} s`),
      h('dt', {}, 'Dead letter'),
      h(
        'dd',
        {},
        queue.dead_letter
          ? `${queue.dead_letter.queue_name} after ${queue.dead_letter.max_reservations} reservations`
          : '—',
      ),
    ),
    queue.push
      ? [
          h('h2', {}, 'Push delivery'),
          h(
            'dl',
            { class: 'facts', id: 'push-settings' },
            h('dt', {}, 'Retries'),
            h('dd', {}, String(queue.push.retries ?? '')),
            h('dt', {}, 'Delay between retries'),
            h('dd', {}, `${queue.push.retries_delay ?? ''} s`),
            h('dt', {}, 'Error queue'),
            h('dd', {}, queue.push.error_queue || '—'),
          ),
          h('h2', {}, 'Subscribers'),
          table(
            ['Name', 'URL', 'Headers'],
            subscribers.map((s) => [s.name, s.url, Object.keys(s.headers || {}).join(', ')]),
            { empty: 'No subscribers.' },
          ),
        ]
      : null,
    queue.alerts
      ? [
          h('h2', {}, 'Alerts'),
          table(
            ['Type', 'Trigger', 'Direction', 'Target queue', 'Snooze'],
            queue.alerts.map((a) => [a.type, String(a.trigger), a.direction || 'asc', a.queue, `${a.snooze || 0} s`]),
          ),
        ]
      : null,
    queue.dead_letter ? deadLetters(name, queue.dead_letter.queue_name) : null,
    h('h2', {}, 'Messages'),
    h(
      'div',
      { class: 'actions' },
      h('button', { onclick: peek }, 'Peek'),
      h(
        'button',
        {
          class: 'danger',
          onclick: async () => {
            if (!confirm(`Remove every message of ${name}? This cannot be undone.`)) return;
            await api('DELETE', mq(`${base}/messages`), {});
            toast(`Cleared ${name}`);
            navigate(`#/queues/${encodeURIComponent(name)}`);
          },
        },
        'Clear queue',
      ),
    ),
    peeked,
    h('h2', {}, 'Post a message'),
    form(
      [field('Message body', { name: 'body', required: true, multiline: true })],
      'Post message',
      async ({ body }, el) => {
        const { ids } = await api('POST', mq(`${base}/messages`), { messages: [{ body }] });
        el.reset();
        toast(`Posted message ${ids[0]}`);
        await peek();
      },
    ),
  );
}

/**
 * The messages of a queue's dead letter queue: peeked, each moved back to the queue (posted there,
 * then deleted from the dead letters) or deleted.
 */
function deadLetters(name, deadLetterQueue) {
  const dlq = `/queues/${encodeURIComponent(deadLetterQueue)}`;
  const list = h('div', { id: 'dead-letters' });
  const show = async () => {
    let messages = [];
    try {
      ({ messages } = await api('GET', mq(`${dlq}/messages?n=100`)));
    } catch (error) {
      if (error.status !== 404) throw error;
    }
    const remove = (id) => api('DELETE', mq(`${dlq}/messages/${encodeURIComponent(id)}`), {});
    list.replaceChildren(
      table(
        ['Id', 'Body', 'Reserved count', ''],
        messages.map((m) => [
          h('code', {}, m.id),
          h('pre', {}, m.body),
          String(m.reserved_count ?? 0),
          h(
            'span',
            { class: 'actions' },
            h(
              'button',
              {
                'aria-label': `Move message ${m.id} back to ${name}`,
                onclick: async () => {
                  await api('POST', mq(`/queues/${encodeURIComponent(name)}/messages`), {
                    messages: [{ body: m.body }],
                  });
                  await remove(m.id);
                  toast(`Moved ${m.id} back to ${name}`);
                  await show();
                },
              },
              'Move back',
            ),
            h(
              'button',
              {
                class: 'danger',
                'aria-label': `Delete dead letter ${m.id}`,
                onclick: async () => {
                  if (!confirm(`Delete message ${m.id} for good?`)) return;
                  await remove(m.id);
                  toast(`Deleted ${m.id}`);
                  await show();
                },
              },
              'Delete',
            ),
          ),
        ]),
        { empty: 'No dead letters.', caption: `Dead letters in ${deadLetterQueue}` },
      ),
    );
  };
  return [
    h('h2', {}, 'Dead letters'),
    h('div', { class: 'actions' }, h('button', { onclick: show }, 'Show dead letters')),
    list,
  ];
}
