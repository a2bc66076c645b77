import { isHttpError } from '../../core/errors.js';
import type { ProjectBudget } from '../../core/project-budget.js';
import type { MessageProducer } from '../messages/message-producer.js';
import type { Message } from '../types.js';
import type { DeliveryOutcome } from './http-delivery.js';
import type { InternalTarget } from './internal-url.js';

/** Queues a task of the project's code `codeName` with `payload` (the worker service, wired by the controller). */
export type QueueTask = (projectId: string, codeName: string, payload: string) => Promise<void>;

/**
 * Delivers to the platform's own subscribers (`ironmq:///`, `ironworker:///`) inside the
 * pushing queue's project. A copy posted to a queue is a message Ferrum produces: it carries
 * the hops left after this delivery's and passes the project's quotas like a client's post
 * (MessageProducer); a task is queued as one of the project's in-process writes too
 * (ProjectBudget.write), as the copy is by the producer. The outcome reads
 * like an HTTP subscriber's: 200 when the message was posted or the task queued, else the
 * status and message of the refusal (0 for anything that is not a refusal), so that retries,
 * error queues and push statuses work alike.
 */
export class InternalDelivery {
  /**
   * Each message's body as UTF-8 bytes, encoded once for all its copies (a fan-out posts the same
   * body to many queues), unless it was read as bytes (push delivery reads it so).
   */
  private readonly bodies = new WeakMap<Message, Buffer>();

  constructor(
    private readonly producer: MessageProducer,
    private readonly queueTask: QueueTask,
    private readonly budget: Pick<ProjectBudget, 'write'>,
  ) {}

  /** Delivers `message`, whose hop the deliverer spent already (`hopsLeft`: what its copy keeps). */
  async deliver(
    projectId: string,
    target: InternalTarget,
    message: Message,
    hopsLeft: number,
  ): Promise<DeliveryOutcome> {
    try {
      if (target.kind === 'queue') {
        await this.producer.postWithHops({ projectId, name: target.name }, this.bytesOf(message), hopsLeft, 'push');
      } else {
        const body = message.body;
        await this.budget.write(projectId, body.length, () => this.queueTask(projectId, target.name, body));
      }
      return { statusCode: 200, error: '' };
    } catch (error) {
      return refusedDelivery(error);
    }
  }

  private bytesOf(message: Message): Buffer {
    if (message.bytes) return message.bytes;
    let bytes = this.bodies.get(message);
    if (!bytes) this.bodies.set(message, (bytes = Buffer.from(message.body)));
    return bytes;
  }
}

/** The outcome of a delivery refused by `error` (a spent hop budget is final: no retry). */
export function refusedDelivery(error: unknown): DeliveryOutcome {
  if (!isHttpError(error)) return { statusCode: 0, error: error instanceof Error ? error.message : String(error) };
  const outcome: DeliveryOutcome = { statusCode: error.statusCode, error: error.message };
  if (error.code === 'mq_hop_budget_exhausted') outcome.final = true;
  return outcome;
}
