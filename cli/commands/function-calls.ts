import { Command } from 'commander';
import { action } from '../action.js';
import { columns } from '../columns.js';
import { integer } from '../options.js';

const CALL_COLUMNS = columns('id', 'path', 'type', 'status', 'created_at', 'completed_at', 'error');

/** `ferrum functions calls list|view|log`: the calls of an app's functions, newest first, and their logs. */
export function callsCommand(): Command {
  const calls = new Command('calls').description("calls of an app's functions and their logs");
  calls
    .command('list <app>')
    .description("list an app's calls, newest first; --cursor continues after a page")
    .option('--per-page <n>', 'page size', integer(1, 100))
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .action(
      action(async ({ client, out }, app: string, options: { perPage?: number; cursor?: string }) => {
        const query = { per_page: options.perPage, cursor: options.cursor };
        const result = await client.functions.calls(app, query);
        out.table(result.calls, CALL_COLUMNS, result);
        if (!out.structured && result.next_cursor) process.stderr.write(`next page: --cursor ${result.next_cursor}\n`);
      }),
    );
  calls
    .command('view <app> <call_id>')
    .description('show a call')
    .action(
      action(async ({ client, out }, app: string, callId: string) => {
        const result = await client.functions.call(app, callId);
        out.record(result.call, result);
      }),
    );
  calls
    .command('log <app> <call_id>')
    .description("print a call's log (what the function wrote to stderr)")
    .action(
      action(async ({ client, out }, app: string, callId: string) => {
        const result = await client.functions.callLog(app, callId);
        out.message(result.log?.log ?? '', result);
      }),
    );
  return calls;
}
