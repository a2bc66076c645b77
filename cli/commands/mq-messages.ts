import { type Command, Option } from 'commander';
import type { Endpoints } from '../../client/endpoints.js';
import { action } from '../action.js';
import { columns } from '../columns.js';
import { CliError } from '../errors.js';
import { inlineOrFile, integer } from '../options.js';
import { commandPath, tellOldSpelling } from '../old-spelling.js';
import { withProgress } from '../progress.js';
import { addConsumeCommand } from './mq-consume.js';

const MESSAGE_COLUMNS = columns('id', 'reserved_count', 'reservation_id', 'body');

/** Deletes messages by id: one (with its reservation when reserved) or a batch. */
async function deleteMessages(client: Endpoints, queue: string, ids: string[], reservationId: string | undefined) {
  if (reservationId !== undefined && ids.length !== 1)
    throw new CliError('--reservation-id goes with exactly one message id', 2);
  if (ids.length === 1) return client.mq.deleteMessage(queue, ids[0]!, reservationId);
  return client.mq.deleteMessages(
    queue,
    ids.map((id) => ({ id })),
  );
}

function definePost(mq: Command): void {
  mq.command('post <queue> [bodies...]')
    .description('post messages: one per argument, or one from --file (- for stdin)')
    .option('--file <file>', 'the body of one message from a file, - for stdin')
    .option('--delay <seconds>', 'seconds before the messages become available', integer(0, 604800))
    .action(
      action(async ({ client, out }, queue: string, bodies: string[], options: { file?: string; delay?: number }) => {
        if (bodies.length > 0 && options.file !== undefined)
          throw new CliError('give message bodies or --file, not both', 2);
        const texts =
          bodies.length > 0
            ? bodies
            : [await inlineOrFile({ inline: '<bodies...>', file: '--file' }, undefined, options.file)];
        const messages = texts.map((body) => ({ body, delay: options.delay }));
        const result = await client.mq.post(queue, messages);
        out.table(
          result.ids.map((id) => ({ id })),
          columns('id'),
          result,
        );
      }),
    );
}

interface ReserveOptions {
  n?: number;
  timeout?: number;
  wait?: number;
  delete?: boolean;
}

function defineReserve(mq: Command): void {
  mq.command('reserve <queue>')
    .description('reserve messages; delete them with the reservation id when done')
    .option('-n, --n <n>', 'at most this many messages', integer(1, 100))
    .option('--timeout <seconds>', 'reservation timeout', integer(30, 86400))
    .option('--wait <seconds>', 'long-poll up to this many seconds for a message', integer(0, 30))
    .option('--delete', 'delete the messages as they are reserved')
    .action(
      action(async ({ client, out }, queue: string, options: ReserveOptions) => {
        const { n, timeout, wait } = options;
        const request = client.mq.reserve(queue, { n, timeout, wait, delete: options.delete });
        const result = wait
          ? await withProgress(`waiting up to ${wait}s for a message on ${queue}…`, request)
          : await request;
        out.table(result.messages, MESSAGE_COLUMNS, result);
      }),
    );
}

function definePeekAndClear(mq: Command): void {
  mq.command('peek <queue>')
    .description('look at the next messages without reserving them')
    .option('-n, --n <n>', 'at most this many messages', integer(1, 100))
    .action(
      action(async ({ client, out }, queue: string, options: { n?: number }) => {
        const result = await client.mq.peek(queue, options.n);
        out.table(result.messages, columns('id', 'reserved_count', 'body'), result);
      }),
    );
  mq.command('clear <queue>')
    .description('remove every message of a queue')
    .action(
      action(async ({ client, out }, queue: string) => {
        out.confirm(await client.mq.clear(queue));
      }),
    );
}

/**
 * `mq delete <queue>` deletes the queue. The old spelling `mq delete <queue> <message_ids...>`
 * (messages) still works for a release, saying to use `mq messages delete` instead.
 */
function defineDelete(mq: Command): void {
  mq.command('delete <queue>')
    .description('delete a queue and its messages')
    .allowExcessArguments()
    .addOption(new Option('--reservation-id <id>').hideHelp())
    .action(
      action(async ({ client, out, command }, queue: string, options: { reservationId?: string }) => {
        const ids = command.args.slice(1);
        if (ids.length === 0 && options.reservationId === undefined) return out.confirm(await client.mq.remove(queue));
        tellOldSpelling(`${commandPath(command)} <queue> <message_ids...>`, 'ferrum mq messages delete');
        out.confirm(await deleteMessages(client, queue, ids, options.reservationId));
      }),
    );
}

function messagesCommand(mq: Command): void {
  const messages = mq.command('messages').description('messages of a queue by id');
  messages
    .command('view <queue> <message_id>')
    .description('show one message')
    .action(
      action(async ({ client, out }, queue: string, id: string) => {
        const result = await client.mq.message(queue, id);
        out.record(result.message ?? {}, result);
      }),
    );
  messages
    .command('delete <queue> <message_ids...>')
    .description('delete messages (give --reservation-id for a reserved one)')
    .option('--reservation-id <id>', 'the reservation of the message (one message only)')
    .action(
      action(async ({ client, out }, queue: string, ids: string[], options: { reservationId?: string }) => {
        out.confirm(await deleteMessages(client, queue, ids, options.reservationId));
      }),
    );
}

/** The message commands of `ferrum mq`: post, reserve, peek, clear, delete, and `messages …`. */
export function messageCommands(mq: Command): void {
  definePost(mq);
  defineReserve(mq);
  addConsumeCommand(mq);
  definePeekAndClear(mq);
  defineDelete(mq);
  messagesCommand(mq);
}
