import { createHash } from 'node:crypto';
import { notFound } from '../../core/errors.js';
import type { QueueRef } from '../scripts.js';
import type { PushStatus } from './status.js';
import type { MessageQueue } from '../message-queue.js';

/** The version 1 id of a subscriber (v1 paths carry ids; subscribers are stored by name). */
export function subscriberIdOf(name: string): string {
  return createHash('sha1').update(name).digest('hex').slice(0, 24);
}

/** Push statuses of a message, as delivery (src/mq/push/) records them. */
export function readPushStatuses(mq: MessageQueue, ref: QueueRef, id: string): Promise<PushStatus[]> {
  return mq.push.statuses(ref, id);
}

/**
 * Version 1 acknowledgement of a push delivery answered 202 (the delete-subscriber endpoint):
 * v1 has no reservation ids, so the subscriber's current reservation is the one acknowledged.
 */
export async function acknowledgePushBySubscriberId(
  mq: MessageQueue,
  ref: QueueRef,
  id: string,
  subscriberId: string,
): Promise<void> {
  const queue = await mq.queues.require(ref);
  const subscriber = queue.push?.subscribers.find((candidate) => subscriberIdOf(candidate.name) === subscriberId);
  if (queue.push && !subscriber) throw notFound(`Subscriber not found: ${subscriberId}`);
  await mq.push.acknowledge(ref, id, '', subscriber?.name ?? subscriberId);
}
