import { MQ_SETTINGS } from '../core/config/mq.js';
import { byteQuotaReached } from '../auth/quotas.js';
import { fail } from '../core/errors.js';
import { ALL_FEATURES, type FeatureFlags } from '../core/features/storage-features.js';
import { type InsertOptions, type MessageQueueDeps } from './message-queue-deps.js';
import { newMessageId } from '../core/ids.js';
import type { RedisClient } from '../core/redis.js';
import { ProjectStorage } from '../auth/stored-bytes.js';
import { alertMessageBody, parseFiredAlerts } from './alerts/alerts.js';
import { LIMITS } from './limits.js';
import { handOverDeadLetters } from './messages/dead-letters.js';
import { ExpirySweeper } from './messages/expiry-sweeper.js';
import {
  reservationOf,
  messageCount,
  timeoutOrQueues,
  type ReservationRequest,
  type ReservedDeletes,
} from './messages/reservation.js';
import {
  deleteArgs,
  outboxEntry,
  peekedMessages,
  postChunks,
  refusal,
  reservationArg,
  reservationPrefix,
  reserveResult,
  reserveResultOfBytes,
  type DeleteTarget,
  type PostRow,
  type ReservationRef,
  type ReserveReply,
  type ReservedBodies,
  type TransferredMessage,
} from './messages/script-io.js';
import { hopsLeftOf, readHeaders } from './messages/hop-budget.js';
import { MessageProducer } from './messages/message-producer.js';
import { postChunk } from './messages/post-chunk.js';
import { WakeHub } from './messages/wake-hub.js';
import { reserveWaiting } from './messages/long-poll.js';
import { mqMetrics, type MqMetrics } from './metrics.js';
import { PushStore } from './push/push-store.js';
import type { QueueQuotas } from './queues/queue-quotas.js';
import { QueueStore } from './queues/queue-store.js';
import { DEAD_LETTER_OUTBOX_KEY, MISSING_QUEUE, MqKeys, Outcome, scripts, type QueueRef } from './scripts.js';
import type { Message, NewMessage, ReserveResult } from './types.js';

function hopsOf(message: Message): number {
  return message.hopsLeft ?? LIMITS.hopBudget;
}

/**
 * The message queue: every message operation is one method here running one Lua script on
 * the queue's keys (lua/), after the domain's rules (reservation bounds, quotas). Queue
 * settings live in `queues` (QueueStore), push delivery state in `push` (PushStore). Every
 * operation on a missing queue answers 404 `Queue not found` except posting, which creates it.
 */
export class MessageQueue {
  readonly keys: MqKeys;
  readonly queues: QueueStore;
  readonly hub: WakeHub;
  readonly push: PushStore;
  readonly sweeper: ExpirySweeper;
  readonly metrics: MqMetrics | null;
  /** Where the messages Ferrum itself produces are posted from (alerts, push deliveries, error reports). */
  readonly producer: MessageProducer;
  private readonly storage: ProjectStorage;
  private readonly redis: RedisClient;
  private readonly minTimeoutSeconds: number;
  private readonly features: FeatureFlags;

  constructor(private readonly deps: MessageQueueDeps) {
    this.redis = deps.redis;
    this.features = deps.features ?? ALL_FEATURES;
    this.minTimeoutSeconds = deps.minTimeoutSeconds;
    this.keys = new MqKeys(deps.keys);
    this.storage = new ProjectStorage(deps.redis, deps.keys);
    this.hub = new WakeHub(deps.bus);
    this.metrics = deps.registry ? mqMetrics(deps.registry, this.hub) : null;
    this.producer = new MessageProducer(
      (ref, messages, quotas, quietAlerts) => this.post(ref, messages, quotas, quietAlerts),
      { quotasOf: deps.projectQuotas, metrics: this.metrics, log: deps.log, budget: deps.budget },
    );
    this.queues = new QueueStore(deps.redis, this.keys, this.storage, (expired) => this.metrics?.expired.inc(expired));
    const retentionMs = deps.pushStatusRetentionMs ?? MQ_SETTINGS.FERRUM_MQ_PUSH_STATUS_RETENTION_MS.fallback;
    const messages = {
      get: (ref: QueueRef, id: string) => this.get(ref, id),
      produceQuietly: this.producer.produceQuietly.bind(this.producer),
    };
    this.push = new PushStore(deps.redis, this.keys, this.queues, messages, retentionMs);
    this.sweeper = new ExpirySweeper(deps.redis, deps.keys, this.keys, deps.sweepIntervalMs ?? 0, deps.log, (expired) =>
      this.metrics?.expired.inc(expired),
    );
  }

  /**
   * Posts messages (creating the queue when missing); returns their ids in order. A tenant's
   * post passes its project's quotas: a new queue past `queues` is 403, bodies past the
   * queue's `queueBytes` 413, and nothing is stored then. A version 1 message's own timeout
   * is checked like a reservation's.
   */
  async post(ref: QueueRef, messages: NewMessage[], quotas?: QueueQuotas, quietAlerts = false): Promise<string[]> {
    const rows = messages.map((message, i): PostRow => {
      const { timeout } = message;
      const seconds = timeout ? timeoutOrQueues(timeout, `messages[${i}].timeout`, this.minTimeoutSeconds) : 0;
      const headers = message.pushHeaders ? JSON.stringify(message.pushHeaders) : '';
      return [newMessageId(), message.body, message.delay ?? 0, headers, 0, message.expiresIn ?? 0, seconds];
    });
    const maxMessages = this.deps.maxPostMessages ?? MQ_SETTINGS.FERRUM_MQ_MAX_POST_MESSAGES.fallback;
    if (messages.length > maxMessages) throw fail('mq_too_many_messages', maxMessages, messages.length);
    const bytes = messages.reduce((sum, message) => sum + Buffer.byteLength(message.body), 0);
    const gate = this.queues.quotas;
    const hops = Math.min(...messages.map((message) => hopsLeftOf(message.pushHeaders)));
    await this.queues.counted(ref, quotas, async () => {
      if (quotas) await gate.checkStoredBytes(ref, bytes, quotas);
      await this.insert(ref, rows, { ids: 'fresh ids', maxQueueBytes: quotas?.queueBytes, quietAlerts, hops });
    });
    this.storage.messages.added(ref.projectId, bytes);
    if (quotas) gate.remember(ref);
    return rows.map((row) => row[0]);
  }

  /** Puts messages that keep their id and reserved_count (dead letter hand-over); repeats are skipped. */
  async transfer(ref: QueueRef, messages: TransferredMessage[]): Promise<void> {
    await this.insert(
      ref,
      messages.map((message) => [message.id, message.body, 0, message.pushHeaders, message.reservedCount, 0]),
      { ids: 'ids may repeat', quietAlerts: false, hops: LIMITS.hopBudget },
    );
  }

  /**
   * Writes messages in order, one bounded chunk per post-messages.lua run (counted, whoever
   * posts: clients, alerts, push error reports). Ids that may repeat are looked up first and
   * those already on the queue skipped.
   */
  private async insert(ref: QueueRef, messages: PostRow[], how: InsertOptions): Promise<void> {
    const { ids, maxQueueBytes } = how;
    // The first chunk checks the whole post against the queue's byte quota: a refused post stores nothing.
    let limit = maxQueueBytes === undefined ? '' : String(maxQueueBytes);
    const bytes = messages.reduce((sum, row) => sum + Buffer.byteLength(row[1]), 0);
    const written: string[] = [];
    for (const chunk of postChunks(messages)) {
      const head = [
        LIMITS.defaultExpirationSeconds,
        this.keys.wakeChannel(ref),
        ids === 'ids may repeat' ? '1' : '0',
        limit,
        bytes,
        how.quietAlerts ? '1' : '0',
      ];
      const [created, inserted, alerts] = await postChunk(this.redis, this.keys.queue(ref), chunk, {
        head,
        plain: this.plainFlag(),
        fresh: ids === 'fresh ids',
      }).catch((error: unknown) => this.withdrawn(ref, ids === 'fresh ids' ? written : [], error));
      if (inserted > 0) written.push(...chunk.map((row) => row[0]));
      if (inserted === -1)
        throw byteQuotaReached('queue_bytes', maxQueueBytes ?? 0, `the queue ${ref.name} (its messages' bodies)`);
      limit = '';
      if (created === 1) await this.queues.indexCreated(ref);
      await this.raiseAlerts(ref, alerts, () => how.hops);
    }
    if (ids === 'fresh ids') this.metrics?.posted.inc(messages.length);
  }

  /**
   * A post whose later chunk failed (Redis full, say, which refuses a script before it runs)
   * takes back what its earlier chunks wrote, so it stores all its messages or none, then fails
   * with `error`. Ids that may repeat are never taken back: they may have been there before.
   */
  private async withdrawn(ref: QueueRef, written: string[], error: unknown): Promise<never> {
    if (written.length > 0)
      await scripts.withdrawMessages.run(this.redis, this.keys.queue(ref), written).catch((cause: unknown) => {
        this.deps.log.warn({ err: cause, queue: ref.name }, 'the messages of a failed post could not be taken back');
      });
    throw error;
  }

  /**
   * Reserves messages within the reservation rule (messages/reservation.ts); with a wait, an
   * empty queue is waited on until a message arrives (woken through pub/sub, or at the moment
   * a delayed or reserved message falls due), the wait ends, or `signal` aborts (client gone,
   * shutdown).
   */
  async reserve(ref: QueueRef, request: ReservationRequest, signal?: AbortSignal): Promise<ReserveResult> {
    const reservation = reservationOf(request, this.minTimeoutSeconds);
    // The deletes go with the first run only: once done they are done, whatever the wait brings.
    const first = await this.reserveNow(ref, reservation, reservation.deleteReserved);
    if (first.count > 0 || reservation.waitSeconds <= 0) return first;
    const channel = this.keys.wakeChannel(ref);
    const again = () => this.reserveNow(ref, reservation);
    const result = await reserveWaiting(this.hub, channel, reservation.waitSeconds, again, signal);
    result.deleteOutcomes = first.deleteOutcomes;
    return result;
  }

  /**
   * One run of reserve.lua without waiting (push delivery reserves this way too): counted, its
   * dead letters handed over. `timeout` 0 is the queue's (or a v1 message's own). `deletes`, when
   * given, are deleted first in the same script (ack-and-next; each one's outcome in the result).
   */
  async reserveNow(
    ref: QueueRef,
    reservation: { n: number; timeout: number; delete?: boolean; bodies?: ReservedBodies },
    deletes?: ReservedDeletes | null,
  ): Promise<ReserveResult> {
    const bytes = reservation.bodies === 'bytes';
    const run = bytes ? scripts.reserve.runForBytes.bind(scripts.reserve) : scripts.reserve.run.bind(scripts.reserve);
    const reply = await run<Array<Buffer | number> | number>(this.redis, this.keys.queue(ref), [
      reservation.n,
      reservation.timeout,
      reservation.delete ? '1' : '0',
      reservationPrefix(),
      LIMITS.defaultTimeoutSeconds,
      this.plainFlag(),
      bytes ? 'bytes' : 'json',
      ...deleteArgs(deletes),
    ]);
    if (reply === MISSING_QUEUE) throw refusal(MISSING_QUEUE);
    const { result, alerts } = bytes
      ? reserveResultOfBytes(reply as Array<Buffer | number>)
      : reserveResult(reply as unknown as ReserveReply);
    await this.raiseAlerts(ref, alerts, () => Math.min(LIMITS.hopBudget, ...result.messages.map((m) => hopsOf(m))));
    this.metrics?.countReserve(result);
    if (result.movedToDeadLetter > 0) await handOverDeadLetters(this, ref, this.deps.log);
    return result;
  }

  /** The first n available messages, not reserved. */
  async peek(ref: QueueRef, n: number | undefined): Promise<Message[]> {
    const reply = await scripts.peek.run<string | number>(this.redis, this.keys.queue(ref), [
      messageCount(n),
      LIMITS.defaultTimeoutSeconds,
    ]);
    if (reply === MISSING_QUEUE) throw refusal(MISSING_QUEUE);
    const result = JSON.parse(String(reply)) as Parameters<typeof peekedMessages>[0] & { expired: number };
    this.metrics?.expired.inc(result.expired);
    return peekedMessages(result);
  }

  async get(ref: QueueRef, id: string): Promise<Message> {
    const reply = await scripts.readMessage.run<(string | number)[]>(this.redis, this.keys.queue(ref), [
      id,
      LIMITS.defaultTimeoutSeconds,
    ]);
    if (reply[0] !== Outcome.ok) throw refusal(Number(reply[0]));
    return {
      id,
      body: String(reply[1]),
      reservedCount: Number(reply[2]),
      ...readHeaders(String(reply[3])),
      timeout: Number(reply[4]),
    };
  }

  /**
   * Deletes all the targets or, when one may not be deleted, none (the error names it).
   * Targets naming a subscriber acknowledge that subscriber's push delivery instead, one at a
   * time, in order (PushStore.acknowledge).
   */
  async delete(ref: QueueRef, given: DeleteTarget[]): Promise<void> {
    const targets = given.some((target) => target.subscriberName) ? await this.acknowledgeNamed(ref, given) : given;
    if (targets.length === 0) return;
    await this.deleteBatch(
      ref,
      targets.map((target) => target.id),
      targets.map((target) => target.reservationId),
    );
  }

  /**
   * Deletes the messages `ids`, each under the reservation in `reservationIds` at the same
   * position (undefined or '': the message must not be reserved), all or none (the error names
   * the first that may not be deleted). The batch delete's path: two lists, no object per id.
   */
  async deleteBatch(ref: QueueRef, ids: string[], reservationIds: (ReservationRef | undefined)[]): Promise<void> {
    // Straight to the script's arguments: no JSON to write here nor to decode there.
    const args = new Array<string>(2 * ids.length);
    for (let i = 0; i < ids.length; i++) {
      args[i] = ids[i]!;
      args[ids.length + i] = reservationArg(reservationIds[i] || undefined);
    }
    const [outcome, position, alerts] = await scripts.deleteMessages.run<[number, number?, string?]>(
      this.redis,
      this.keys.queue(ref),
      args,
    );
    if (outcome !== Outcome.ok)
      throw refusal(outcome, ids.length > 1 && position !== undefined ? ids[position - 1] : undefined);
    this.metrics?.deleted.inc(new Set(ids).size);
    await this.raiseAlerts(ref, alerts, () => LIMITS.hopBudget);
  }

  /** Acknowledges the targets that name a subscriber; returns the others. */
  private async acknowledgeNamed(ref: QueueRef, targets: DeleteTarget[]): Promise<DeleteTarget[]> {
    const deletes: DeleteTarget[] = [];
    for (const target of targets) {
      if (!target.subscriberName) {
        deletes.push(target);
        continue;
      }
      if (typeof target.reservationId !== 'string') throw fail('mq_acknowledge_needs_reservation');
      await this.push.acknowledge(ref, target.id, target.reservationId, target.subscriberName);
    }
    return deletes;
  }

  /**
   * Renews a live reservation (for `timeout` within the reservation bounds, else the message's
   * own timeout); returns the new reservation id.
   */
  async touch(
    ref: QueueRef,
    id: string,
    reservationId: ReservationRef,
    timeout?: number,
  ): Promise<{ reservationId: string; reservedCount: number }> {
    const seconds = timeoutOrQueues(timeout, 'timeout', this.minTimeoutSeconds);
    const next = `${reservationPrefix()}00`;
    const [outcome, reservedCount] = await scripts.touch.run<number[]>(this.redis, this.keys.queue(ref), [
      id,
      reservationArg(reservationId),
      seconds,
      next,
      LIMITS.defaultTimeoutSeconds,
      this.plainFlag(),
    ]);
    if (outcome !== Outcome.ok) throw refusal(outcome!);
    return { reservationId: next, reservedCount: reservedCount! };
  }

  /** The scripts' argument for the storage flag plain_messages, read from process memory. */
  private plainFlag(): string {
    return this.features.enabled('plain_messages') ? '1' : '0';
  }

  /** Returns a reserved message to the front of the queue, at once or after `delay` seconds. */
  async release(ref: QueueRef, id: string, reservationId: ReservationRef, delay = 0): Promise<void> {
    const [outcome] = await scripts.release.run<number[]>(this.redis, this.keys.queue(ref), [
      id,
      reservationArg(reservationId),
      delay,
      this.keys.wakeChannel(ref),
    ]);
    if (outcome !== Outcome.ok) throw refusal(outcome!);
  }

  /** Removes every message of a queue, keeping the queue (and fires the alerts that crosses). */
  async clear(ref: QueueRef): Promise<void> {
    const alerts = await scripts.clearQueue.run<string | number>(this.redis, this.keys.queue(ref));
    if (alerts === MISSING_QUEUE) throw fail('mq_queue_not_found');
    await this.raiseAlerts(ref, alerts, () => LIMITS.hopBudget);
  }

  /** Takes up to `count` messages out of a queue's dead letter outbox (see reserve.lua). */
  async takeDeadLetterOutbox(ref: QueueRef, count: number): Promise<Array<TransferredMessage & { queue: string }>> {
    const outbox = this.keys.queue(ref)[DEAD_LETTER_OUTBOX_KEY]!;
    return ((await this.redis.lpop(outbox, count)) ?? []).map(outboxEntry);
  }

  /**
   * Posts one message per fired alert to its target queue (another hash tag, so a second step),
   * each produced from the messages that moved the size (`causeHops`: their fewest hops left;
   * a client's delete or clear, the whole budget). Like dead letter hand-over it is best effort:
   * a refusal is logged, the source operation stands.
   */
  private async raiseAlerts(source: QueueRef, reply: unknown, causeHops: () => number): Promise<void> {
    for (const fired of parseFiredAlerts(reply)) {
      const target = { projectId: source.projectId, name: fired.queue };
      await this.producer.produceQuietly(target, alertMessageBody(source, fired), causeHops(), 'alert');
    }
  }

  /** Ends every long-poll wait (before the HTTP server closes). */
  close(): void {
    this.hub.closeAll();
  }

  /** Starts the background sweeper (leader-elected among controllers). */
  startBackgroundWork(): void {
    this.sweeper.start();
  }

  async stopBackgroundWork(): Promise<void> {
    await this.sweeper.stop();
  }
}
