import type { QueueRef } from '../scripts.js';
import type { TransferredMessage } from './script-io.js';
import type { MqLogger } from '../types.js';

const HAND_OVER_BATCH = 100;

/** The message operations a hand-over takes (MessageQueue's). */
export interface DeadLetterOutbox {
  takeDeadLetterOutbox(ref: QueueRef, count: number): Promise<Array<TransferredMessage & { queue: string }>>;
  transfer(ref: QueueRef, messages: TransferredMessage[]): Promise<void>;
}

/**
 * Moves messages that reserve put in a queue's dead letter outbox onto their dead letter
 * queues (the outbox and the target live under different hash tags, so this is a second step).
 * Delivery is best effort, as the spec allows: a failed hand-over is logged and dropped.
 */
export async function handOverDeadLetters(messages: DeadLetterOutbox, source: QueueRef, log: MqLogger): Promise<void> {
  for (;;) {
    const taken = await messages.takeDeadLetterOutbox(source, HAND_OVER_BATCH);
    if (taken.length === 0) return;
    const byQueue = new Map<string, typeof taken>();
    for (const message of taken) byQueue.set(message.queue, [...(byQueue.get(message.queue) ?? []), message]);
    for (const [name, batch] of byQueue) {
      try {
        await messages.transfer({ projectId: source.projectId, name }, batch);
      } catch (error) {
        log.warn(
          { err: error, queue: name, dropped: batch.map((message) => message.id) },
          'dead letter hand-over failed',
        );
      }
    }
    if (taken.length < HAND_OVER_BATCH) return;
  }
}
