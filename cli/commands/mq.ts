import { Command } from 'commander';
import { action } from '../action.js';
import { columns } from '../columns.js';
import { integer } from '../options.js';
import { oldSpelling } from '../old-spelling.js';
import { messageCommands } from './mq-messages.js';

interface QueueOptions {
  type?: string;
  timeout?: number;
  expiration?: number;
  deadLetter?: string;
  maxReservations?: number;
  subscriber?: string[];
}

/** The `queue` object of a create or edit request from the flags. */
function queueSettings(options: QueueOptions): Record<string, unknown> {
  const queue: Record<string, unknown> = { message_timeout: options.timeout, message_expiration: options.expiration };
  if (options.type) queue.type = options.type;
  if (options.deadLetter !== undefined)
    queue.dead_letter = { queue_name: options.deadLetter, max_reservations: options.maxReservations };
  if (options.subscriber?.length) {
    queue.push = { subscribers: options.subscriber.map((url, i) => ({ name: `subscriber-${i + 1}`, url })) };
  }
  return queue;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The settings flags of `mq create` and `mq edit`, sent with `method`. */
function defineSettings(command: Command, method: 'create' | 'update'): Command {
  return command
    .option('--type <type>', 'pull, unicast or multicast (fixed after creation)')
    .option('--timeout <seconds>', 'message_timeout', integer(30, 86400))
    .option('--expiration <seconds>', 'message_expiration', integer(1))
    .option('--dead-letter <queue>', 'dead letter queue name ("" removes it)')
    .option('--max-reservations <n>', 'reservations before a message is dead-lettered', integer(1, 1000))
    .option('--subscriber <url>', 'push subscriber URL (repeat for more)', collect)
    .action(
      action(async ({ client, out }, queue: string, options: QueueOptions) => {
        const result = await client.mq[method](queue, queueSettings(options));
        out.record(result.queue, result);
      }),
    );
}

function defineList(command: Command): Command {
  return command
    .description('list queues in name order')
    .option('--prefix <prefix>', 'only names starting with it')
    .option('--per-page <n>', 'page size', integer(1, 100))
    .option('--previous <queue>', 'continue after this name')
    .action(
      action(async ({ client, out }, options: { prefix?: string; perPage?: number; previous?: string }) => {
        const query = { prefix: options.prefix, per_page: options.perPage, previous: options.previous };
        const result = await client.mq.list(query);
        out.table(result.queues ?? [], columns('name'), result);
      }),
    );
}

const defineView = (command: Command) =>
  command.description('show a queue with its size: ready, delayed and reserved messages').action(
    action(async ({ client, out }, queue: string) => {
      const result = await client.mq.get(queue);
      out.record(result.queue, result);
    }),
  );

const defineDeleteQueue = (command: Command) =>
  command
    .description('delete a queue and its messages')
    .action(action(async ({ client, out }, queue: string) => out.confirm(await client.mq.remove(queue))));

/** `ferrum mq …`: queues (list, view, create, edit, delete) and their messages. */
export function mqCommand(): Command {
  const mq = new Command('mq').description('message queues (API v3)');
  defineList(mq.command('list'));
  defineView(mq.command('view <queue>'));
  defineSettings(mq.command('create <queue>'), 'create').description('create a queue, or replace its settings');
  defineSettings(mq.command('edit <queue>'), 'update').description("change an existing queue's settings");
  messageCommands(mq);
  defineView(oldSpelling(mq, 'info <queue>', 'ferrum mq view'));
  defineDeleteQueue(oldSpelling(mq, 'delete-queue <queue>', 'ferrum mq delete'));
  return mq;
}
