import type { Worker } from 'node:cluster';
import { isWorkerMessage, type PrimaryMessage, type WorkerMessage } from './messages.js';

/** What asking uses of a worker. */
export type AskedWorker = Pick<Worker, 'once' | 'on' | 'off' | 'isConnected' | 'send'>;

/**
 * Sends `message` to a worker; resolves on its answer `until` (or on its exit, which ends any
 * wait). Either way the listeners it added go: a worker is asked again and again (every drain,
 * every stop) while it lives.
 */
export function askWorker(
  worker: AskedWorker,
  message: PrimaryMessage,
  until: WorkerMessage['ferrum'] | null,
): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (answer: unknown) => {
      if (isWorkerMessage(answer) && answer.ferrum === until) done();
    };
    const done = () => {
      worker.off('exit', done);
      worker.off('message', onMessage);
      resolve();
    };
    worker.once('exit', done);
    if (until) worker.on('message', onMessage);
    if (worker.isConnected()) worker.send(message);
    else done();
  });
}
