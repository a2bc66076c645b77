import { StringDecoder } from 'node:string_decoder';
import type { ApiClient } from '../api-client.js';
import { CliError } from '../errors.js';
import { Progress } from '../progress.js';

/** Task states after which nothing more happens; any other (even unknown) state may still change. */
export const FINAL_TASK_STATES = new Set(['complete', 'error', 'cancelled', 'timeout']);

interface Task {
  id: string;
  status: string;
  msg?: string;
}

export const taskPath = (api: ApiClient, taskId: string, rest = '') =>
  `/2/projects/${api.projectId}/tasks/${encodeURIComponent(taskId)}${rest}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Prints a task's log as it grows until the task ends, then fails unless it completed.
 * The status is read before the log, so once a final status is seen the log read after it is whole.
 */
export async function followLog(
  api: ApiClient,
  taskId: string,
  intervalMs: number,
  write: (text: string) => void,
): Promise<void> {
  const progress = new Progress();
  // Only the bytes not yet printed are fetched; a character split between two reads is held back.
  const decoder = new StringDecoder('utf8');
  let offset = 0;
  for (;;) {
    const task = await api.get<Task>(taskPath(api, taskId));
    const bytes = await api.bytes('GET', taskPath(api, taskId, '/log'), { query: { offset } });
    if (bytes.length > 0) {
      offset += bytes.length;
      progress.clear();
      write(decoder.write(bytes));
    }
    if (FINAL_TASK_STATES.has(task.status)) {
      progress.clear();
      write(decoder.end());
      if (task.status !== 'complete')
        throw new CliError(`task ${taskId} ended ${task.status}${task.msg ? `: ${task.msg}` : ''}`);
      return;
    }
    progress.update(`task ${taskId} is ${task.status}…`);
    await sleep(intervalMs);
  }
}
