import type { RedisClient } from '../../core/redis.js';
import { badRequest, forbidden, notFound } from '../../core/errors.js';
import { type MqKeys, type QueueRef, MISSING_QUEUE, Outcome, pushScripts } from '../scripts.js';
import type { MessageStore } from '../messages/message-store.js';
import type { QueueStore } from '../queues/queue-store.js';
import type { Message, PushSettings, QueueInfo } from '../types.js';
import { errorQueueMessage } from './error-queue.js';
import { freshStatus, type PushStatus, type SubscriberStatus } from './status.js';

/** A push message's delivery status per subscriber name. */
export type StatusMap = Map<string, SubscriberStatus>;

/** One delivery round of a message held under `reservationId`, with the statuses it changed. */
export interface FinishedRound {
  message: Message;
  reservationId: string;
  updates: StatusMap;
}

/**
 * Push delivery state in Redis: each message's status per subscriber (a hash under the queue's
 * hash tag), the end of a delivery round, and acknowledgements of 202 answers. Shared by the
 * deliverer and the API versions.
 */
export class PushStore {
  constructor(
    private readonly redis: RedisClient,
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
    let stored = await this.storedStatuses(ref, id);
    if (stored.size === 0) {
      try {
        await this.messages.get(ref, id);
      } catch (error) {
        // A delivery round may have ended between the two reads: it writes the statuses and
        // removes the message in one script, so a second read sees them.
        stored = await this.storedStatuses(ref, id);
        if (stored.size === 0) throw error;
      }
    }
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
   * Records delivery rounds of messages of one queue the deliverer holds (one script call);
   * each message whose delivery is over is removed and, if a subscriber failed for good,
   * reported on the error queue.
   */
  async finishRounds(queue: QueueInfo, rounds: FinishedRound[]): Promise<void> {
    const push = pushSettingsOf(queue);
    const names = push.subscribers.map((subscriber) => subscriber.name);
    const keys = [...this.keys.queue(queue), ...rounds.map((round) => this.keys.pushStatus(queue, round.message.id))];
    const list = rounds.map((round) => [
      round.message.id,
      round.reservationId,
      [...round.updates].flatMap(([name, status]) => [name, JSON.stringify(status)]),
    ]);
    const reply = await pushScripts.finishRound.run<string>(this.redis, keys, [
      queue.type,
      JSON.stringify(names),
      queue.messageExpiration * 1000,
      this.keys.wakeChannel(queue),
      this.finishedStatusLifetimeMs,
      JSON.stringify(list),
    ]);
    for (const [position, statuses] of JSON.parse(reply) as Array<[number, Array<string | false>]>) {
      await this.reportErrors(queue, rounds[position - 1]!.message, names, statuses);
    }
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
      const message: Message = {
        id,
        body: String(body),
        reservedCount: 0,
        pushHeaders: headers ? JSON.parse(String(headers)) : undefined,
      };
      await this.reportErrors(queue, message, names, JSON.parse(String(statuses)) as Array<string | false>);
    }
  }

  private statusKeys(ref: QueueRef, id: string): string[] {
    return [...this.keys.queue(ref), this.keys.pushStatus(ref, id)];
  }

  private async reportErrors(
    queue: QueueInfo,
    message: Message,
    names: string[],
    list: Array<string | false>,
  ): Promise<void> {
    const errorQueue = queue.push?.error_queue;
    if (!errorQueue) return;
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
