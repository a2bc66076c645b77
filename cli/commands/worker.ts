import { Command } from 'commander';
import { Response } from 'undici';
import { type ApiClient, FormData, type Json } from '../api-client.js';
import { optionalClusterIdOf } from '../cluster-ref.js';
import { codeArchive } from '../code-package.js';
import { action } from '../context.js';
import { columns } from '../output.js';
import { inlineOrFile, integer, keyValue } from '../options.js';
import { Progress, withUploadProgress } from '../progress.js';
import { followLog, taskPath } from './worker-log.js';
import { scheduleCommand } from './worker-schedules.js';

const CODE_COLUMNS = columns('id', 'name', 'rev', 'image', 'command', 'latest_change');
const TASK_COLUMNS = columns('id', 'code_name', 'status', 'created_at', 'duration', 'msg');
const TASK_STATES = ['queued', 'preparing', 'running', 'complete', 'error', 'cancelled', 'timeout'];

const projectPath = (api: ApiClient, rest: string) => `/2/projects/${api.projectId}${rest}`;

interface UploadOptions {
  image?: string;
  command?: string;
  stack?: string;
  config?: string;
  configFile?: string;
  env?: Record<string, string>;
  maxConcurrency?: number;
  retries?: number;
  retriesDelay?: number;
  priority?: number;
}

function uploadData(name: string, options: UploadOptions, config: string | undefined): Json {
  return {
    name,
    image: options.image,
    command: options.command,
    stack: options.stack,
    config,
    env_vars: options.env,
    max_concurrency: options.maxConcurrency,
    retries: options.retries,
    retries_delay: options.retriesDelay,
    default_priority: options.priority,
  };
}

async function upload(api: ApiClient, name: string, source: string | undefined, options: UploadOptions): Promise<Json> {
  const config =
    options.config === undefined && options.configFile === undefined
      ? undefined
      : await inlineOrFile({ inline: '--config', file: '--config-file' }, options.config, options.configFile);
  const form = new FormData();
  form.append('data', JSON.stringify(uploadData(name, options, config)));
  if (source !== undefined) {
    const zip = await codeArchive(source);
    form.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), `${name}.zip`);
  }
  // Encoded up front so the terminal can show bytes sent and the percentage.
  const encoded = new Response(form);
  const body = Buffer.from(await encoded.arrayBuffer());
  const progress = new Progress();
  try {
    return await api.call<Json>('POST', projectPath(api, '/codes'), {
      body: withUploadProgress(`uploading ${name}…`, body, progress),
      headers: { 'content-type': encoded.headers.get('content-type')!, 'content-length': String(body.length) },
    });
  } finally {
    progress.clear();
  }
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

function codesCommand(): Command {
  const codes = new Command('codes').description('code packages');
  codes
    .command('list')
    .description('list code packages')
    .option('--page <n>', '0-based page', integer(0, 100))
    .option('--per-page <n>', 'page size', integer(1, 100))
    .action(
      action(async ({ api, out }, options: { page?: number; perPage?: number }) => {
        const result = await api.get<{ codes: Json[] }>(projectPath(api, '/codes'), {
          page: options.page,
          per_page: options.perPage,
        });
        out.table(result.codes, CODE_COLUMNS, result);
      }),
    );
  codes
    .command('get <code_id>')
    .description('show a code package')
    .action(
      action(async ({ api, out }, codeId: string) =>
        out.record(await api.get<Json>(projectPath(api, `/codes/${encodeURIComponent(codeId)}`))),
      ),
    );
  codes
    .command('delete <code_id>')
    .description('delete a code package')
    .action(
      action(async ({ api, out }, codeId: string) => {
        out.confirm(await api.delete<{ msg: string }>(projectPath(api, `/codes/${encodeURIComponent(codeId)}`)));
      }),
    );
  return codes;
}

export function workerCommand(): Command {
  const worker = new Command('worker').description('code packages, tasks and schedules');
  worker
    .command('upload <name> [zip_or_dir]')
    .description('upload a code package: a container image, or a zip file / directory run by an image or stack')
    .option('--image <image>', 'container image')
    .option('--command <command>', 'command to run')
    .option('--stack <stack>', 'a stack (old-style zip packages) instead of an image')
    .option('--config <text>', 'config handed to the task in a file')
    .option('--config-file <file>', 'config from a file')
    .option('--env <KEY=VALUE>', 'environment variable (repeat for more)', keyValue)
    .option('--max-concurrency <n>', 'tasks of this package running at once', integer(1))
    .option('--retries <n>', 'retries of a failed task', integer(0, 10))
    .option('--retries-delay <seconds>', 'seconds before a retry', integer(0))
    .option('--priority <p>', 'default priority', integer(0, 2))
    .action(
      action(async ({ api, out }, name: string, source: string | undefined, options: UploadOptions) => {
        const result = await upload(api, name, source, options);
        out.message(`${String(result.msg)} (code id ${String(result.id)})`, result);
      }),
    );
  worker.addCommand(codesCommand());
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
      action(async ({ api, out }, codeName: string, options: QueueOptions) => {
        const payload = await inlineOrFile(
          { inline: '--payload', file: '--payload-file' },
          options.payload,
          options.payloadFile,
          '{}',
        );
        const task = {
          code_name: codeName,
          payload,
          priority: options.priority,
          cluster: await optionalClusterIdOf(api, options.cluster),
          timeout: options.timeout,
          delay: options.delay,
          label: options.label,
        };
        const result = await api.post<{ tasks: Json[] }>(projectPath(api, '/tasks'), { tasks: [task] });
        out.table(result.tasks, columns('id'), result);
      }),
    );
  worker
    .command('tasks')
    .description('list tasks, newest first')
    .option('--code-name <name>', 'only tasks of this code package')
    .option('--status <status...>', `only these states (${TASK_STATES.join(', ')})`)
    .option('--page <n>', '0-based page', integer(0, 100))
    .option('--per-page <n>', 'page size', integer(1, 100))
    .action(
      action(
        async ({ api, out }, options: { codeName?: string; status?: string[]; page?: number; perPage?: number }) => {
          const query: Record<string, string | number | undefined> = {
            code_name: options.codeName,
            page: options.page,
            per_page: options.perPage,
          };
          for (const status of options.status ?? []) query[status] = 1;
          const result = await api.get<{ tasks: Json[] }>(projectPath(api, '/tasks'), query);
          out.table(result.tasks, TASK_COLUMNS, result);
        },
      ),
    );
  worker
    .command('status <task_id>')
    .description('show a task')
    .action(action(async ({ api, out }, taskId: string) => out.record(await api.get<Json>(taskPath(api, taskId)))));
  worker
    .command('log <task_id>')
    .description("print a task's log; --follow prints it as it grows until the task ends")
    .option('-f, --follow', 'keep printing until the task ends; exits non-zero unless it completes')
    .option('--interval <ms>', 'polling interval of --follow', integer(10, 60000), 1000)
    .action(
      action(async ({ api, out }, taskId: string, options: { follow?: boolean; interval: number }) => {
        if (options.follow) return followLog(api, taskId, options.interval, (text) => process.stdout.write(text));
        out.write(await api.text('GET', taskPath(api, taskId, '/log')));
      }),
    );
  worker
    .command('cancel <task_id>')
    .description('cancel a task')
    .action(
      action(async ({ api, out }, taskId: string) => {
        out.confirm(await api.post<{ msg: string }>(taskPath(api, taskId, '/cancel')));
      }),
    );
  worker
    .command('retry <task_id>')
    .description('queue a task again')
    .option('--delay <seconds>', 'seconds before it is queued', integer(0, 604800))
    .action(
      action(async ({ api, out }, taskId: string, options: { delay?: number }) => {
        const result = await api.post<{ tasks: Json[] }>(taskPath(api, taskId, '/retry'), { delay: options.delay });
        out.table(result.tasks, columns('id'), result);
      }),
    );
  worker.addCommand(scheduleCommand());
  return worker;
}
