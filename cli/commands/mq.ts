import { Command } from 'commander';
import { type ApiClient, type Json } from '../api-client.js';
import { action } from '../context.js';
import { CliError } from '../errors.js';
import { columns } from '../output.js';
import { inlineOrFile, integer } from '../options.js';
import { withProgress } from '../progress.js';
import { addConsumeCommand } from './mq-consume.js';

const MESSAGE_COLUMNS = columns('id', 'reserved_count', 'reservation_id', 'body');

function queuePath(api: ApiClient, queue: string, rest = ''): string {
  return `/3/projects/${api.projectId}/queues/${encodeURIComponent(queue)}${rest}`;
}

interface QueueOptions {
  type?: string;
  timeout?: number;
  expiration?: number;
  deadLetter?: string;
  maxReservations?: number;
  subscriber?: string[];
}

/** The `queue` object of a create request from the flags. */
function queueSettings(options: QueueOptions): Json {
  const queue: Json = { message_timeout: options.timeout, message_expiration: options.expiration };
  if (options.type) queue.type = options.type;
  if (options.deadLetter !== undefined)
    queue.dead_letter = { queue_name: options.deadLetter, max_reservations: options.maxReservations };
  if (options.subscriber?.length) {
    queue.push = { subscribers: options.subscriber.map((url, i) => ({ name: `subscriber-${i + 1}`, url })) };
  }
  return queue;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function mqCommand(): Command {
  const mq = new Command('mq').description('message queues (API v3)');
  mq.command('create <queue>')
    .description('create a queue, or update its settings')
    .option('--type <type>', 'pull, unicast or multicast (fixed after creation)')
    .option('--timeout <seconds>', 'message_timeout', integer(30, 86400))
    .option('--expiration <seconds>', 'message_expiration', integer(1))
    .option('--dead-letter <queue>', 'dead letter queue name ("" removes it)')
    .option('--max-reservations <n>', 'reservations before a message is dead-lettered', integer(1, 1000))
    .option('--subscriber <url>', 'push subscriber URL (repeat for more)', collect)
    .action(
      action(async ({ api, out }, queue: string, options: QueueOptions) => {
        const result = await api.put<{ queue: Json }>(queuePath(api, queue), { queue: queueSettings(options) });
        out.record(result.queue, result);
      }),
    );
  mq.command('list')
    .description('list queues in name order')
    .option('--prefix <prefix>', 'only names starting with it')
    .option('--per-page <n>', 'page size', integer(1, 100))
    .option('--previous <queue>', 'continue after this name')
    .action(
      action(async ({ api, out }, options: { prefix?: string; perPage?: number; previous?: string }) => {
        const query = { prefix: options.prefix, per_page: options.perPage, previous: options.previous };
        const result = await api.get<{ queues: Json[] }>(`/3/projects/${api.projectId}/queues`, query);
        out.table(result.queues, columns('name'), result);
      }),
    );
  mq.command('info <queue>')
    .description('show a queue with its size: ready, delayed and reserved messages')
    .action(
      action(async ({ api, out }, queue: string) => {
        const result = await api.get<{ queue: Json }>(queuePath(api, queue));
        out.record(result.queue, result);
      }),
    );
  mq.command('post <queue> [bodies...]')
    .description('post messages: one per argument, or one from --file (- for stdin)')
    .option('--file <file>', 'the body of one message from a file, - for stdin')
    .option('--delay <seconds>', 'seconds before the messages become available', integer(0, 604800))
    .action(
      action(async ({ api, out }, queue: string, bodies: string[], options: { file?: string; delay?: number }) => {
        if (bodies.length > 0 && options.file !== undefined)
          throw new CliError('give message bodies or --file, not both', 2);
        const texts =
          bodies.length > 0
            ? bodies
            : [await inlineOrFile({ inline: '<bodies...>', file: '--file' }, undefined, options.file)];
        const messages = texts.map((body) => ({ body, delay: options.delay }));
        const result = await api.post<{ ids: string[]; msg: string }>(queuePath(api, queue, '/messages'), { messages });
        out.table(
          result.ids.map((id) => ({ id })),
          columns('id'),
          result,
        );
      }),
    );
  mq.command('reserve <queue>')
    .description('reserve messages; delete them with the reservation id when done')
    .option('-n, --n <n>', 'at most this many messages', integer(1, 100))
    .option('--timeout <seconds>', 'reservation timeout', integer(30, 86400))
    .option('--wait <seconds>', 'long-poll up to this many seconds for a message', integer(0, 30))
    .option('--delete', 'delete the messages as they are reserved')
    .action(
      action(
        async (
          { api, out },
          queue: string,
          options: { n?: number; timeout?: number; wait?: number; delete?: boolean },
        ) => {
          const request = api.post<{ messages: Json[] }>(queuePath(api, queue, '/reservations'), {
            n: options.n,
            timeout: options.timeout,
            wait: options.wait,
            delete: options.delete,
          });
          const result = options.wait
            ? await withProgress(`waiting up to ${options.wait}s for a message on ${queue}…`, request)
            : await request;
          out.table(result.messages, MESSAGE_COLUMNS, result);
        },
      ),
    );
  addConsumeCommand(mq, queuePath);
  mq.command('peek <queue>')
    .description('look at the next messages without reserving them')
    .option('-n, --n <n>', 'at most this many messages', integer(1, 100))
    .action(
      action(async ({ api, out }, queue: string, options: { n?: number }) => {
        const result = await api.get<{ messages: Json[] }>(queuePath(api, queue, '/messages'), { n: options.n });
        out.table(result.messages, columns('id', 'reserved_count', 'body'), result);
      }),
    );
  mq.command('delete <queue> <message_ids...>')
    .description('delete messages (give --reservation-id for a reserved one)')
    .option('--reservation-id <id>', 'the reservation of the message (one message only)')
    .action(
      action(async ({ api, out }, queue: string, ids: string[], options: { reservationId?: string }) => {
        if (options.reservationId !== undefined && ids.length !== 1)
          throw new CliError('--reservation-id goes with exactly one message id', 2);
        const deleteOne = () =>
          api.delete<{ msg: string }>(queuePath(api, queue, `/messages/${encodeURIComponent(ids[0]!)}`), {
            reservation_id: options.reservationId,
          });
        const deleteBatch = () =>
          api.delete<{ msg: string }>(queuePath(api, queue, '/messages'), { ids: ids.map((id) => ({ id })) });
        out.confirm(await (ids.length === 1 ? deleteOne() : deleteBatch()));
      }),
    );
  mq.command('clear <queue>')
    .description('remove every message of a queue')
    .action(
      action(async ({ api, out }, queue: string) => {
        out.confirm(await api.delete<{ msg: string }>(queuePath(api, queue, '/messages'), {}));
      }),
    );
  mq.command('delete-queue <queue>')
    .description('delete a queue and its messages')
    .action(
      action(async ({ api, out }, queue: string) => {
        out.confirm(await api.delete<{ msg: string }>(queuePath(api, queue)));
      }),
    );
  return mq;
}
