import type { Message, QueueType, Subscriber } from '../types.js';
import type { DeliveryOutcome } from './http-delivery.js';
import type { StatusMap } from './push-store.js';
import {
  afterLapse,
  afterTry,
  isAccepted,
  isDue,
  isLapsedReservation,
  type RoundContext,
} from './status-transitions.js';
import { freshStatus, type SubscriberStatus } from './status.js';

/** Sends one delivery of `message` to `subscriber`. */
export type Send = (subscriber: Subscriber, message: Message) => Promise<DeliveryOutcome>;

export interface MessageRound {
  type: QueueType;
  message: Message;
  /** What is stored so far (empty on a message's first round). */
  stored: StatusMap;
  context: RoundContext;
  /** Unicast: where in the subscriber list this message starts (spreads messages over subscribers). */
  firstSubscriber: number;
  send: Send;
}

/**
 * Runs one delivery round of a message: multicast tries every subscriber that is due, at
 * once; unicast tries due subscribers one at a time until one accepts. Returns the statuses
 * that changed.
 */
export async function runRound(round: MessageRound): Promise<StatusMap> {
  const { push, now } = round.context;
  const updates: StatusMap = new Map();
  const current = push.subscribers.map((subscriber): [Subscriber, SubscriberStatus] => {
    let status = round.stored.get(subscriber.name) ?? freshStatus(subscriber.url, push);
    if (isLapsedReservation(status, now)) {
      status = afterLapse(status, round.context);
      updates.set(subscriber.name, status);
    }
    return [subscriber, { ...status, url: subscriber.url }];
  });
  if (round.type === 'unicast') await unicast(round, current, updates);
  else await multicast(round, current, updates);
  return updates;
}

async function multicast(
  round: MessageRound,
  current: Array<[Subscriber, SubscriberStatus]>,
  updates: StatusMap,
): Promise<void> {
  const due = current.filter(([, status]) => isDue(status, round.context.now));
  await Promise.all(
    due.map(async ([subscriber, status]) => {
      const outcome = await round.send(subscriber, round.message);
      updates.set(subscriber.name, afterTry(status, outcome, round.context));
    }),
  );
}

async function unicast(
  round: MessageRound,
  current: Array<[Subscriber, SubscriberStatus]>,
  updates: StatusMap,
): Promise<void> {
  // One subscriber at a time: nothing to do while one holds the message or has taken it.
  if (current.some(([, status]) => isAccepted(status))) return;
  const start = round.firstSubscriber % Math.max(current.length, 1);
  const ordered = [...current.slice(start), ...current.slice(0, start)];
  for (const [subscriber, status] of ordered) {
    if (!isDue(status, round.context.now)) continue;
    const next = afterTry(status, await round.send(subscriber, round.message), round.context);
    updates.set(subscriber.name, next);
    if (isAccepted(next)) return;
  }
}
