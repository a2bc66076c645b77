import type { Command } from 'commander';
import type { ReservedMessage } from '../../client/responses.js';
import { action } from '../action.js';
import { integer } from '../options.js';

interface ConsumeOptions {
  n: number;
  timeout?: number;
  wait: number;
  max?: number;
}

const deleteEntries = (batch: ReservedMessage[]) => batch.map(({ id, reservation_id }) => ({ id, reservation_id }));

/**
 * `ferrum mq consume`: reserves batch after batch and writes each message as a JSON line; each
 * batch, once written, is deleted by the next reserve (Ferrum's ack-and-next `delete_reserved`:
 * one request per batch), the last one by a batch delete. Stops when a reserve (after its wait)
 * brings nothing, or after --max messages.
 */
export function addConsumeCommand(mq: Command) {
  mq.command('consume <queue>')
    .description('reserve, print (a JSON line each) and delete messages until the queue stays empty')
    .option('-n, --n <n>', 'messages per batch', integer(1, 100), 100)
    .option('--timeout <seconds>', 'reservation timeout', integer(30, 86400))
    .option('--wait <seconds>', 'long-poll up to this many seconds for the next batch', integer(0, 30), 0)
    .option('--max <count>', 'stop after this many messages', integer(1, Number.MAX_SAFE_INTEGER))
    .action(
      action(async ({ client, out }, queue: string, options: ConsumeOptions) => {
        let done: ReservedMessage[] = [];
        let consumed = 0;
        for (;;) {
          const n = Math.min(options.n, (options.max ?? Infinity) - consumed);
          if (n <= 0) break;
          const request = { n, timeout: options.timeout, wait: options.wait };
          const answer = await client.mq.reserve(queue, { ...request, delete_reserved: deleteEntries(done) });
          for (const refused of answer.not_deleted ?? [])
            process.stderr.write(`not deleted: ${refused.id}: ${refused.msg}\n`);
          for (const { id, reserved_count, body } of answer.messages)
            out.write(JSON.stringify({ id, reserved_count, body }));
          done = answer.messages;
          consumed += done.length;
          if (done.length === 0) break;
        }
        if (done.length > 0) await client.mq.deleteMessages(queue, deleteEntries(done));
      }),
    );
}
