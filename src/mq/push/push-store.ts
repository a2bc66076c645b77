import type { RedisClient } from '../../core/redis.js';
import { fail } from '../../core/errors.js';
import { type MqKeys, type QueueRef, MISSING_QUEUE, Outcome, pushScripts } from '../scripts.js';
import type { QueueStore } from '../queues/queue-store.js';
import type { Message, PushSettings, QueueInfo } from '../types.js';
import { readHeaders } from '../messages/hop-budget.js';
import { errorQueueMessage } from './error-queue.js';
import { freshStatus, type PushStatus, type SubscriberStatus } from './status.js';
import { subscriberIdOf } from './v1-subscriber-ids.js';

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
/** The message operations push state reads and writes through (MessageQueue's). */
export interface QueueMessages {
  get(ref: QueueRef, id: string): Promise<Message>;
  /** Posts a message Ferrum produces (here: an error report) from one with `hopsLeft` (MessageProducer). */
  produceQuietly(ref: QueueRef, body: string, hopsLeft: number | undefined, by: 'error_report'): Promise<void>;
}

export class PushStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: MqKeys,
    private readonly queues: QueueStore,
    private readonly messages: QueueMessages,
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
   * Version 1 acknowledgement of a push delivery answered 202 (the delete-subscriber endpoint):
   * v1 has no reservation ids, so the subscriber's current reservation is the one acknowledged.
   */
  async acknowledgeBySubscriberId(ref: QueueRef, id: string, subscriberId: string): Promise<void> {
    const queue = await this.queues.require(ref);
    const subscriber = queue.push?.subscribers.find((candidate) => subscriberIdOf(candidate.name) === subscriberId);
    if (queue.push && !subscriber) throw fail('mq_subscriber_not_found', subscriberId);
    await this.acknowledge(ref, id, '', subscriber?.name ?? subscriberId);
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
    if (outcome === MISSING_QUEUE) throw fail('mq_queue_not_found');
    if (outcome === Outcome.notFound) throw fail('mq_push_message_not_found', subscriberName);
    if (outcome === Outcome.timedOut) throw fail('mq_reservation_timed_out', '');
    if (done === 1) {
      const message: Message = {
        id,
        body: String(body),
        reservedCount: 0,
        ...readHeaders(headers ? String(headers) : ''),
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
    if (!report) return;
    const target = { projectId: queue.projectId, name: errorQueue };
    await this.messages.produceQuietly(target, report, message.hopsLeft, 'error_report');
  }
}

export function pushSettingsOf(queue: QueueInfo): PushSettings {
  if (!queue.push) throw fail('mq_push_queues_only');
  return queue.push;
}
