import { Command } from 'commander';
import { action } from '../action.js';
import { optionalClusterIdOf } from '../cluster-ref.js';
import type { UploadOptions } from '../code-upload.js';
import { columns } from '../columns.js';
import { inlineOrFile, integer, keyValue } from '../options.js';
import { oldSpelling } from '../old-spelling.js';
import { taskCommands } from './worker-tasks.js';
import { scheduleCommand } from './worker-schedules.js';

const CODE_COLUMNS = columns('id', 'name', 'rev', 'image', 'command', 'latest_change');

function defineUpload(worker: Command): void {
  worker
    .command('upload <name> [zip_or_dir]')
    .description('upload a code package: a container image, or a zip file / directory run by an image or stack')
    .option('--image <image>', 'container image')
    .option('--command <command>', 'command to run')
    .option('--file-name <file>', 'the file a zip or directory runs (with --runtime), instead of --command')
    .option('--runtime <runtime>', 'the runtime that runs --file-name (e.g. sh, python, node, ruby)')
    .option('--stack <stack>', 'a stack (old-style zip packages) instead of an image')
    .option('--config <text>', 'config handed to the task in a file')
    .option('--config-file <file>', 'config from a file')
    .option('--env <KEY=VALUE>', 'environment variable (repeat for more)', keyValue)
    .option('--max-concurrency <n>', 'tasks of this package running at once', integer(1))
    .option('--retries <n>', 'retries of a failed task', integer(0, 10))
    .option('--retries-delay <seconds>', 'seconds before a retry', integer(0))
    .option('--priority <p>', 'default priority', integer(0, 2))
    .action(
      action(async (ctx, name: string, source: string | undefined, options: UploadOptions) => {
        const { uploadCode } = await import('../code-upload.js');
        const result = await uploadCode(ctx, name, source, options);
        const { out } = ctx;
        out.message(`${String(result.msg)} (code id ${String(result.id)})`, result);
      }),
    );
}

const defineCodeView = (command: Command) =>
  command
    .description('show a code package')
    .action(action(async ({ client, out }, codeId: string) => out.record(await client.worker.code(codeId))));

function codesCommand(): Command {
  const codes = new Command('codes').description('code packages');
  codes
    .command('list')
    .description('list code packages')
    .option('--page <n>', '0-based page', integer(0, 100))
    .option('--per-page <n>', 'page size', integer(1, 100))
    .action(
      action(async ({ client, out }, options: { page?: number; perPage?: number }) => {
        const result = await client.worker.codes({ page: options.page, per_page: options.perPage });
        out.table(result.codes ?? [], CODE_COLUMNS, result);
      }),
    );
  defineCodeView(codes.command('view <code_id>'));
  codes
    .command('delete <code_id>')
    .description('delete a code package')
    .action(
      action(async ({ client, out }, codeId: string) => {
        out.confirm(await client.worker.deleteCode(codeId));
      }),
    );
  defineCodeView(oldSpelling(codes, 'get <code_id>', 'ferrum worker codes view'));
  return codes;
}

interface QueueOptions {
  payload?: string;
  payloadFile?: string;
  priority?: number;
  cluster?: string;
  timeout?: number;
  delay?: number;
  label?: string;
}

function defineQueue(worker: Command): void {
  worker
    .command('queue <code_name>')
    .description('queue a task')
    .option('--payload <text>', 'the payload (default {})')
    .option('--payload-file <file>', 'the payload from a file, - for stdin')
    .option('--priority <p>', '0, 1 or 2', integer(0, 2))
    .option('--cluster <cluster>', 'cluster to run on, by id or name')
    .option('--timeout <seconds>', 'run time limit', integer(1, 3600))
    .option('--delay <seconds>', 'seconds before the task is queued', integer(0, 604800))
    .option('--label <label>', 'a label for the task')
    .action(
      action(async ({ client, out }, codeName: string, options: QueueOptions) => {
        const files = { inline: '--payload', file: '--payload-file' };
        const payload = await inlineOrFile(files, options.payload, options.payloadFile, '{}');
        const { priority, timeout, delay, label } = options;
        const cluster = await optionalClusterIdOf(client, options.cluster);
        const task = { code_name: codeName, payload, priority, cluster, timeout, delay, label };
        const result = await client.worker.queue([task]);
        out.table(result.tasks ?? [], columns('id'), result);
      }),
    );
}

/** `ferrum worker …`: code packages, tasks and schedules. */
export function workerCommand(): Command {
  const worker = new Command('worker').description('code packages, tasks and schedules');
  defineUpload(worker);
  worker.addCommand(codesCommand());
  defineQueue(worker);
  taskCommands(worker);
  worker.addCommand(scheduleCommand());
  return worker;
}
