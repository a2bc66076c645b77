// @ts-check
import { mq } from '../client.js';
import { confirmedButton, field, form, h, table, toast } from '../dom.js';
/** @typedef {import('../types').Message} Message */

/** A button for one message or the queue, asking first when `question` is given. */
function actionButton(
  /** @type {string} */ label,
  /** @type {string} */ ariaLabel,
  /** @type {() => Promise<void>} */ run,
  { question = '', danger = false } = {},
) {
  return confirmedButton(label, question, run, { danger, ariaLabel });
}

/**
 * A queue's messages: peek at the next ones (each can be deleted), reserve one to delete, release
 * or touch it, clear the queue, post one.
 * @param {string} name @param {() => void} reload
 */
export function messagesSection(name, reload) {
  const peeked = h('div', { id: 'peeked' });
  const held = h('div', { id: 'reserved' });
  /** @type {Message[]} the messages this page reserved and still holds */
  let reservations = [];
  const peek = async () => peeked.replaceChildren(peekedTable(name, await mq.peek(name, 100), peek));
  const showHeld = () =>
    held.replaceChildren(
      reservedTable(name, reservations, async (m, done) => {
        if (done) reservations = reservations.filter((r) => r.id !== m.id);
        showHeld();
      }),
    );
  const reserve = async () => {
    const [message] = await mq.reserve(name, 1, 60);
    if (!message) return toast('No message is ready to reserve');
    reservations = [...reservations.filter((r) => r.id !== message.id), message];
    toast(`Reserved ${message.id} for 60 s`);
    showHeld();
  };
  return [
    h('h2', {}, 'Messages'),
    h(
      'div',
      { class: 'actions' },
      h('button', { onclick: peek }, 'Peek'),
      h('button', { onclick: reserve }, 'Reserve one'),
      actionButton(
        'Clear queue',
        `Clear queue ${name}`,
        async () => {
          await mq.clear(name);
          toast(`Cleared ${name}`);
          reload();
        },
        { question: `Remove every message of ${name}? This cannot be undone.`, danger: true },
      ),
    ),
    held,
    peeked,
    h('h2', {}, 'Post a message'),
    form(
      [field('Message body', { name: 'body', required: true, multiline: true })],
      'Post message',
      async ({ body }, el) => {
        const { ids } = await mq.post(name, [body]);
        el.reset();
        toast(`Posted message ${ids[0]}`);
        await peek();
      },
    ),
  ];
}

/**
 * The next messages, not reserved, each with Delete.
 * @param {string} name @param {Message[]} messages @param {() => Promise<unknown>} peekAgain
 */
function peekedTable(name, messages, peekAgain) {
  return table(
    ['Id', 'Body', 'Reserved count', ''],
    messages.map((m) => [
      h('code', {}, m.id),
      h('pre', {}, m.body),
      String(m.reserved_count ?? 0),
      actionButton(
        'Delete',
        `Delete message ${m.id}`,
        async () => {
          await mq.deleteMessage(name, m.id);
          toast(`Deleted ${m.id}`);
          await peekAgain();
        },
        { question: `Delete message ${m.id}?`, danger: true },
      ),
    ]),
    { empty: 'No messages available.', caption: `Next ${messages.length} message(s), not reserved` },
  );
}

/**
 * The messages this page holds reserved, each to delete, release (back to the queue) or touch
 * (the reservation starts again, with a new id).
 * @param {string} name @param {Message[]} messages
 * @param {(message: Message, done: boolean) => Promise<void>} changed
 */
function reservedTable(name, messages, changed) {
  return table(
    ['Id', 'Body', 'Reservation', ''],
    messages.map((m) => [
      h('code', {}, m.id),
      h('pre', {}, m.body),
      h('code', {}, m.reservation_id || ''),
      h(
        'span',
        { class: 'actions' },
        actionButton('Touch', `Touch message ${m.id}`, async () => {
          m.reservation_id = (await mq.touch(name, m.id, m.reservation_id || '')).reservation_id;
          toast(`Touched ${m.id}`);
          await changed(m, false);
        }),
        actionButton(
          'Release',
          `Release message ${m.id}`,
          async () => {
            await mq.release(name, m.id, m.reservation_id || '');
            toast(`Released ${m.id}`);
            await changed(m, true);
          },
          { question: `Release message ${m.id} back to ${name}?` },
        ),
        actionButton(
          'Delete',
          `Delete reserved message ${m.id}`,
          async () => {
            await mq.deleteMessage(name, m.id, m.reservation_id);
            toast(`Deleted ${m.id}`);
            await changed(m, true);
          },
          { question: `Delete message ${m.id}?`, danger: true },
        ),
      ),
    ]),
    { empty: 'No message reserved here.', caption: 'Reserved by this page' },
  );
}

/**
 * The messages of a queue's dead letter queue: peeked, each moved back to the queue (posted there,
 * then deleted from the dead letters) or deleted.
 * @param {string} name @param {string} deadLetterQueue
 */
export function deadLetters(name, deadLetterQueue) {
  const list = h('div', { id: 'dead-letters' });
  const show = async () => {
    /** @type {Message[]} */
    let messages = [];
    try {
      messages = await mq.peek(deadLetterQueue, 100);
    } catch (error) {
      if (error.status !== 404) throw error;
    }
    const done = async (/** @type {string} */ text) => {
      toast(text);
      await show();
    };
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
            actionButton('Move back', `Move message ${m.id} back to ${name}`, async () => {
              await mq.post(name, [m.body]);
              await mq.deleteMessage(deadLetterQueue, m.id);
              await done(`Moved ${m.id} back to ${name}`);
            }),
            actionButton(
              'Delete',
              `Delete dead letter ${m.id}`,
              async () => {
                await mq.deleteMessage(deadLetterQueue, m.id);
                await done(`Deleted ${m.id}`);
              },
              { question: `Delete message ${m.id} for good?`, danger: true },
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
