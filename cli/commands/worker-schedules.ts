import { Command } from 'commander';
import { optionalClusterIdOf } from '../cluster-ref.js';
import { action } from '../action.js';
import { columns } from '../columns.js';
import { inlineOrFile, integer } from '../options.js';
import { oldSpelling } from '../old-spelling.js';

const SCHEDULE_COLUMNS = columns('id', 'code_name', 'status', 'run_every', 'cron', 'run_count', 'next_start', 'msg');

interface CreateOptions {
  payload?: string;
  payloadFile?: string;
  startAt?: string;
  endAt?: string;
  runEvery?: number;
  cron?: string;
  timezone?: string;
  runTimes?: number;
  priority?: number;
  timeout?: number;
  cluster?: string;
  delay?: number;
  label?: string;
}

const defineView = (command: Command) =>
  command
    .description('show a schedule')
    .action(action(async ({ client, out }, id: string) => out.record(await client.worker.schedule(id))));

function defineCreate(schedule: Command): void {
  schedule
    .command('create <code_name>')
    .description('schedule tasks of a code package')
    .option('--payload <text>', 'the payload (default {})')
    .option('--payload-file <file>', 'the payload from a file, - for stdin')
    .option('--start-at <time>', 'first run (RFC 3339); now by default')
    .option('--end-at <time>', 'stop queuing after this time (RFC 3339)')
    .option('--run-every <seconds>', 'seconds between runs', integer(1))
    .option(
      '--cron <expression>',
      'run at the times of a cron expression (5 fields, or 6 with seconds) instead of --run-every',
    )
    .option('--timezone <zone>', 'the IANA time zone of --cron (default UTC), e.g. Europe/Berlin')
    .option('--run-times <n>', 'number of runs', integer(1))
    .option('--priority <p>', '0, 1 or 2', integer(0, 2))
    .option('--timeout <seconds>', 'run time limit of each task', integer(1, 3600))
    .option('--cluster <cluster>', 'cluster to run on, by id or name')
    .option('--delay <seconds>', 'seconds added before each task becomes available', integer(0, 604800))
    .option('--label <label>', 'a label for the schedule')
    .action(
      action(async ({ client, out }, codeName: string, options: CreateOptions) => {
        const payload = await inlineOrFile(
          { inline: '--payload', file: '--payload-file' },
          options.payload,
          options.payloadFile,
          '{}',
        );
        const request = {
          code_name: codeName,
          payload,
          start_at: options.startAt,
          end_at: options.endAt,
          run_every: options.runEvery,
          cron: options.cron,
          timezone: options.timezone,
          run_times: options.runTimes,
          priority: options.priority,
          timeout: options.timeout,
          cluster: await optionalClusterIdOf(client, options.cluster),
          delay: options.delay,
          label: options.label,
        };
        const result = await client.worker.createSchedules([request]);
        out.table(result.schedules ?? [], columns('id'), result);
      }),
    );
}

/** `ferrum worker schedule create|list|view|cancel`. */
export function scheduleCommand(): Command {
  const schedule = new Command('schedule').description(
    'scheduled tasks: every few seconds, or at the times of a cron expression',
  );
  defineCreate(schedule);
  schedule
    .command('list')
    .description('list schedules')
    .option('--page <n>', '0-based page', integer(0, 100))
    .option('--per-page <n>', 'page size', integer(1, 100))
    .action(
      action(async ({ client, out }, options: { page?: number; perPage?: number }) => {
        const result = await client.worker.schedules({ page: options.page, per_page: options.perPage });
        out.table(result.schedules ?? [], SCHEDULE_COLUMNS, result);
      }),
    );
  defineView(schedule.command('view <schedule_id>'));
  schedule
    .command('cancel <schedule_id>')
    .description('cancel a schedule')
    .action(
      action(async ({ client, out }, id: string) => {
        out.confirm(await client.worker.cancelSchedule(id));
      }),
    );
  defineView(oldSpelling(schedule, 'get <schedule_id>', 'ferrum worker schedule view'));
  return schedule;
}
