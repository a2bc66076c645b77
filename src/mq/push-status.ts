import { createHash } from 'node:crypto';
import { notFound } from '../core/errors.js';
import type { QueueRef } from './keys.js';
import type { MessageStore } from './message-store.js';
import type { QueueStore } from './queue-store.js';

/** A subscriber's delivery state for one message, as the version 1 push status lists it. */
export interface PushStatus {
  subscriberId: string;
  name: string;
  url: string;
  retriesDelay: number;
  retriesRemaining: number;
  statusCode: number | null;
  status: string;
}

/** The version 1 id of a subscriber (v1 paths carry ids; subscribers are stored by name). */
export function subscriberIdOf(name: string): string {
  return createHash('sha1').update(name).digest('hex').slice(0, 24);
}

/**
 * Push statuses of a message, read from what storage holds. Delivery (src/mq/push/) records
 * them; until a delivery has been recorded for the message there is nothing to show and the
 * answer is 404 rather than invented statuses.
 */
export async function readPushStatuses(queues: QueueStore, messages: MessageStore, ref: QueueRef, id: string): Promise<PushStatus[]> {
  const queue = await queues.require(ref);
  await messages.get(ref, id);
  if (!queue.push) throw notFound(`Message ${id} has no push status: ${ref.name} is a pull queue`);
  throw notFound(`No push status has been recorded for message ${id}`);
}

/** Version 1 acknowledgement of a push delivery answered 202 (delete-subscriber endpoint). */
export async function acknowledgePushBySubscriberId(
  queues: QueueStore,
  messages: MessageStore,
  ref: QueueRef,
  id: string,
  subscriberId: string,
): Promise<void> {
  const queue = await queues.require(ref);
  await messages.get(ref, id);
  if (!queue.push) throw notFound(`Message ${id} has no push status: ${ref.name} is a pull queue`);
  if (!queue.push.subscribers.some((subscriber) => subscriberIdOf(subscriber.name) === subscriberId)) {
    throw notFound(`Subscriber not found: ${subscriberId}`);
  }
  throw notFound(`No delivery of message ${id} to subscriber ${subscriberId} is awaiting acknowledgement`);
}
