import { StringDecoder } from 'node:string_decoder';
import type { Task } from '../../client/responses.js';
import type { CommandContext } from '../context.js';
import { CliError } from '../errors.js';
import { Progress } from '../progress.js';

/** Task states after which nothing more happens; any other (even unknown) state may still change. */
export const FINAL_TASK_STATES = new Set(['complete', 'error', 'cancelled', 'timeout']);

/** How often a queued task's cluster is asked whether any runner serves it. */
const RUNNER_CHECK_MS = 5000;

/**
 * Tells (on stderr, once per change) when a queued task's cluster has no runner at all, so a
 * follow that would wait forever says why. Silent when the caller may not read the cluster.
 */
class RunnerWatch {
  private lacking = false;
  private checkedAt = 0;

  constructor(
    private readonly client: CommandContext['client'],
    private readonly notice: (text: string) => void,
  ) {}

  async check(task: Task): Promise<void> {
    if (task.status !== 'queued' || !task.cluster || Date.now() - this.checkedAt < RUNNER_CHECK_MS) return;
    this.checkedAt = Date.now();
    const found = await this.client.clusters.get(task.cluster).catch(() => null);
    if (!found) return;
    const lacking = !(Number(found.cluster?.runners_total) > 0);
    if (lacking && !this.lacking)
      this.notice(
        `ferrum: no runner serves cluster ${task.cluster}: task ${task.id} stays queued until one starts ` +
          `(ferrum runners list ${task.cluster}); still waiting\n`,
      );
    if (!lacking && this.lacking) this.notice(`ferrum: a runner serves cluster ${task.cluster} now\n`);
    this.lacking = lacking;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Prints a task's log as it grows until the task ends, then fails unless it completed; says so
 * while no runner serves the cluster of a queued task.
 * The status is read before the log, so once a final status is seen the log read after it is whole.
 */
export async function followLog(
  { client, api }: Pick<CommandContext, 'client' | 'api'>,
  taskId: string,
  intervalMs: number,
  write: (text: string) => void,
  notice: (text: string) => void = (text) => process.stderr.write(text),
): Promise<void> {
  const progress = new Progress();
  const runners = new RunnerWatch(client, (text) => {
    progress.clear();
    notice(text);
  });
  // Only the bytes not yet printed are fetched; a character split between two reads is held back.
  const decoder = new StringDecoder('utf8');
  let offset = 0;
  for (;;) {
    const task = await client.worker.task(taskId);
    const bytes = await api.bytes('GET', client.paths.taskLog(taskId), { query: { offset } });
    if (bytes.length > 0) {
      offset += bytes.length;
      progress.clear();
      write(decoder.write(bytes));
    }
    if (task.status !== undefined && FINAL_TASK_STATES.has(task.status)) {
      progress.clear();
      write(decoder.end());
      if (task.status !== 'complete')
        throw new CliError(`task ${taskId} ended ${task.status}${task.msg ? `: ${task.msg}` : ''}`);
      return;
    }
    await runners.check(task);
    progress.update(`task ${taskId} is ${task.status ?? 'unknown'}…`);
    await sleep(intervalMs);
  }
}
