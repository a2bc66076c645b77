import type { Redis } from 'ioredis';
import { badRequest, forbidden, notFound } from '../../core/errors.js';
import type { MqKeys, QueueRef } from '../keys.js';
import type { MessageStore } from '../message-store.js';
import type { QueueStore } from '../queue-store.js';
import { MISSING_QUEUE, Outcome } from '../scripts.js';
import type { Message, PushSettings, QueueInfo } from '../types.js';
import { errorQueueMessage } from './error-queue.js';
import { pushScripts } from './scripts.js';
import { freshStatus, type PushStatus, type SubscriberStatus } from './status.js';

/** A push message's delivery status per subscriber name. */
export type StatusMap = Map<string, SubscriberStatus>;

/**
 * Push delivery state in Redis: each message's status per subscriber (a hash under the queue's
 * hash tag), the end of a delivery round, and acknowledgements of 202 answers. Shared by the
 * deliverer and the API versions.
 */
export class PushStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: MqKeys,
    private readonly queues: QueueStore,
    private readonly messages: MessageStore,
    private readonly finishedStatusLifetimeMs: number,
  ) {}

  /** The stored statuses of one message (subscribers never tried are absent). */
  async storedStatuses(ref: QueueRef, id: string): Promise<StatusMap> {
    const fields = await this.redis.hgetall(this.keys.pushStatus(ref, id));
    return new Map(Object.entries(fields).map(([name, json]) => [name, JSON.parse(json) as SubscriberStatus]));
  }

  /** Every current subscriber's status of a message of a push queue (404 when neither message nor status exists). */
  async statuses(ref: QueueRef, id: string): Promise<PushStatus[]> {
    const push = pushSettingsOf(await this.queues.require(ref));
    const stored = await this.storedStatuses(ref, id);
    if (stored.size === 0) await this.messages.get(ref, id);
    return push.subscribers.map((subscriber) => {
      const status = stored.get(subscriber.name) ?? freshStatus(subscriber.url, push);
      return {
        name: subscriber.name,
        url: subscriber.url,
        status: status.status,
        tries: status.tries,
        retriesRemaining: status.retries_remaining,
        retriesDelay: push.retries_delay,
        statusCode: status.status_code,
        lastTryAt: status.last_try_at,
        error: status.error,
      };
    });
  }

  /**
   * Records a delivery round of a message the deliverer holds under `reservationId`; when
   * delivery is over the message is removed and, if a subscriber failed for good, reported on
   * the error queue.
   */
  async finishRound(queue: QueueInfo, message: Message, reservationId: string, updates: StatusMap): Promise<boolean> {
    const push = pushSettingsOf(queue);
    const names = push.subscribers.map((subscriber) => subscriber.name);
    const flat = [...updates].flatMap(([name, status]) => [name, JSON.stringify(status)]);
    const [done, statuses] = await pushScripts.finishRound.run<[number, string?]>(this.redis, this.statusKeys(queue, message.id), [
      message.id,
      reservationId,
      queue.type,
      JSON.stringify(names),
      JSON.stringify(flat),
      queue.messageExpiration * 1000,
      this.keys.wakeChannel(queue),
      this.finishedStatusLifetimeMs,
    ]);
    if (done === 1) await this.reportErrors(queue, message, names, statuses!);
    return done === 1;
  }

  /**
   * A subscriber acknowledges (deletes) a message it answered with 202. Version 3 names the
   * reservation; version 1's delete-subscriber endpoint passes '' (the subscriber's current one).
   */
  async acknowledge(ref: QueueRef, id: string, reservationId: string, subscriberName: string): Promise<void> {
    const queue = await this.queues.require(ref);
    const push = pushSettingsOf(queue);
    const names = push.subscribers.map((subscriber) => subscriber.name);
    const reply = await pushScripts.acknowledge.run<(number | string)[]>(this.redis, this.statusKeys(queue, id), [
      id,
      reservationId,
      subscriberName,
      queue.type,
      JSON.stringify(names),
      this.finishedStatusLifetimeMs,
    ]);
    const [outcome, done, statuses, body, headers] = reply;
    if (outcome === MISSING_QUEUE) throw notFound('Queue not found');
    if (outcome === Outcome.notFound) throw notFound(`Message not found for subscriber "${subscriberName}"`);
    if (outcome === Outcome.timedOut) throw forbidden('Reservation timed out');
    if (done === 1) {
      const message: Message = { id, body: String(body), reservedCount: 0, pushHeaders: headers ? JSON.parse(String(headers)) : undefined };
      await this.reportErrors(queue, message, names, String(statuses));
    }
  }

  private statusKeys(ref: QueueRef, id: string): string[] {
    return [...this.keys.queue(ref), this.keys.pushStatus(ref, id)];
  }

  private async reportErrors(queue: QueueInfo, message: Message, names: string[], statusesJson: string): Promise<void> {
    const errorQueue = queue.push?.error_queue;
    if (!errorQueue) return;
    const list = JSON.parse(statusesJson) as Array<string | false>;
    const statuses = new Map<string, SubscriberStatus>();
    names.forEach((name, i) => {
      const raw = list[i];
      if (raw) statuses.set(name, JSON.parse(raw) as SubscriberStatus);
    });
    const report = errorQueueMessage(queue, message, statuses);
    if (report) await this.messages.post({ projectId: queue.projectId, name: errorQueue }, [{ body: report }]);
  }
}

export function pushSettingsOf(queue: QueueInfo): PushSettings {
  if (!queue.push) throw badRequest('Push statuses and acknowledgements apply to push queues only');
  return queue.push;
}
