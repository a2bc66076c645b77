import { isHttpError } from '../../core/errors.js';
import type { MessageProducer } from '../messages/message-producer.js';
import type { Message } from '../types.js';
import type { DeliveryOutcome } from './http-delivery.js';
import type { InternalTarget } from './internal-url.js';

/** Queues a task of the project's code `codeName` with `payload` (the worker service, wired by the controller). */
export type QueueTask = (projectId: string, codeName: string, payload: string) => Promise<void>;

/**
 * Delivers to the platform's own subscribers (`ironmq:///`, `ironworker:///`) inside the
 * pushing queue's project. A copy posted to a queue is a message Ferrum produces: it spends a
 * hop and passes the project's quotas like a client's post (MessageProducer). The outcome reads
 * like an HTTP subscriber's: 200 when the message was posted or the task queued, else the
 * status and message of the refusal (0 for anything that is not a refusal), so that retries,
 * error queues and push statuses work alike.
 */
export class InternalDelivery {
  constructor(
    private readonly producer: MessageProducer,
    private readonly queueTask: QueueTask,
  ) {}

  async deliver(projectId: string, target: InternalTarget, message: Message): Promise<DeliveryOutcome> {
    try {
      if (target.kind === 'queue') {
        await this.producer.produce({ projectId, name: target.name }, message.body, message.hopsLeft, 'push');
      } else {
        this.producer.spendHop(message.hopsLeft, 'push');
        await this.queueTask(projectId, target.name, message.body);
      }
      return { statusCode: 200, error: '' };
    } catch (error) {
      return refusedDelivery(error);
    }
  }
}

/** The outcome of a delivery refused by `error` (a spent hop budget is final: no retry). */
export function refusedDelivery(error: unknown): DeliveryOutcome {
  if (!isHttpError(error)) return { statusCode: 0, error: error instanceof Error ? error.message : String(error) };
  const outcome: DeliveryOutcome = { statusCode: error.statusCode, error: error.message };
  if (error.code === 'mq_hop_budget_exhausted') outcome.final = true;
  return outcome;
}
