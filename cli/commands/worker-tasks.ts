import type { Command } from 'commander';
import { action } from '../action.js';
import { columns } from '../columns.js';
import { integer } from '../options.js';
import { oldSpelling } from '../old-spelling.js';
import { followLog } from './worker-log.js';

const TASK_COLUMNS = columns('id', 'code_name', 'status', 'created_at', 'duration', 'msg');
const TASK_STATES = ['queued', 'preparing', 'running', 'complete', 'error', 'cancelled', 'timeout'];

interface ListOptions {
  codeName?: string;
  status?: string[];
  page?: number;
  perPage?: number;
}

const defineList = (command: Command) =>
  command
    .description('list tasks, newest first')
    .option('--code-name <name>', 'only tasks of this code package')
    .option('--status <status...>', `only these states (${TASK_STATES.join(', ')})`)
    .option('--page <n>', '0-based page', integer(0, 100))
    .option('--per-page <n>', 'page size', integer(1, 100))
    .action(
      action(async ({ client, out }, options: ListOptions) => {
        const query: Record<string, string | number | undefined> = {
          code_name: options.codeName,
          page: options.page,
          per_page: options.perPage,
        };
        for (const status of options.status ?? []) query[status] = 1;
        const result = await client.worker.tasks(query);
        out.table(result.tasks ?? [], TASK_COLUMNS, result);
      }),
    );

const defineView = (command: Command) =>
  command
    .description('show a task')
    .action(action(async ({ client, out }, taskId: string) => out.record(await client.worker.task(taskId))));

const defineLog = (command: Command) =>
  command
    .description("print a task's log; --follow prints it as it grows until the task ends")
    .option('-f, --follow', 'keep printing until the task ends; exits non-zero unless it completes')
    .option('--interval <ms>', 'polling interval of --follow', integer(10, 60000), 1000)
    .action(
      action(async (ctx, taskId: string, options: { follow?: boolean; interval: number }) => {
        if (options.follow) return followLog(ctx, taskId, options.interval, (text) => process.stdout.write(text));
        ctx.out.write(await ctx.client.worker.log(taskId));
      }),
    );

const defineCancel = (command: Command) =>
  command.description('cancel a task').action(
    action(async ({ client, out }, taskId: string) => {
      out.confirm(await client.worker.cancel(taskId));
    }),
  );

const defineRetry = (command: Command) =>
  command
    .description('queue a task again')
    .option('--delay <seconds>', 'seconds before it is queued', integer(0, 604800))
    .action(
      action(async ({ client, out }, taskId: string, options: { delay?: number }) => {
        const result = await client.worker.retry(taskId, { delay: options.delay });
        out.table(result.tasks ?? [], columns('id'), result);
      }),
    );

/**
 * `ferrum worker tasks list|view|log|cancel|retry` (plain `worker tasks` lists, as it did), and
 * the old spellings `worker status|log|cancel|retry <task_id>` for a release.
 */
export function taskCommands(worker: Command): void {
  const tasks = worker.command('tasks').description('tasks: list them, view one, read its log, cancel or retry it');
  defineList(tasks.command('list', { isDefault: true }));
  defineView(tasks.command('view <task_id>'));
  defineLog(tasks.command('log <task_id>'));
  defineCancel(tasks.command('cancel <task_id>'));
  defineRetry(tasks.command('retry <task_id>'));
  defineView(oldSpelling(worker, 'status <task_id>', 'ferrum worker tasks view'));
  defineLog(oldSpelling(worker, 'log <task_id>', 'ferrum worker tasks log'));
  defineCancel(oldSpelling(worker, 'cancel <task_id>', 'ferrum worker tasks cancel'));
  defineRetry(oldSpelling(worker, 'retry <task_id>', 'ferrum worker tasks retry'));
}
