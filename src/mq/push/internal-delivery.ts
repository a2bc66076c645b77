import { isHttpError } from '../../core/errors.js';
import type { MessageQueue } from '../message-queue.js';
import type { DeliveryOutcome } from './http-delivery.js';
import type { InternalTarget } from './internal-url.js';

/** Queues a task of the project's code `codeName` with `payload` (the worker service, wired by the controller). */
export type QueueTask = (projectId: string, codeName: string, payload: string) => Promise<void>;

/**
 * Delivers to the platform's own subscribers (`ironmq:///`, `ironworker:///`) inside the
 * pushing queue's project. The outcome reads like an HTTP subscriber's: 200 when the message
 * was posted or the task queued, else the status and message of the refusal (0 for anything
 * that is not a refusal), so that retries, error queues and push statuses work alike.
 */
export class InternalDelivery {
  constructor(
    private readonly mq: MessageQueue,
    private readonly queueTask: QueueTask,
  ) {}

  async deliver(projectId: string, target: InternalTarget, body: string): Promise<DeliveryOutcome> {
    try {
      if (target.kind === 'queue') await this.mq.post({ projectId, name: target.name }, [{ body }]);
      else await this.queueTask(projectId, target.name, body);
      return { statusCode: 200, error: '' };
    } catch (error) {
      if (isHttpError(error)) return { statusCode: error.statusCode, error: error.message };
      return { statusCode: 0, error: error instanceof Error ? error.message : String(error) };
    }
  }
}
