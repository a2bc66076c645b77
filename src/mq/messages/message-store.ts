import type { RedisClient } from '../../core/redis.js';
import { boundedChunks } from '../../core/chunks.js';
import { randomUUID } from 'node:crypto';
import { forbidden, notFound } from '../../core/errors.js';
import { newMessageId } from '../../core/ids.js';
import { byteQuotaReached } from '../../auth/quotas.js';
import { alertMessageBody, parseFiredAlerts } from '../alerts/alerts.js';
import {
  DEAD_LETTER_OUTBOX_KEY,
  type MqKeys,
  type QueueRef,
  ANY_RESERVATION,
  MISSING_QUEUE,
  Outcome,
  scripts,
} from '../scripts.js';
import { LIMITS } from '../limits.js';
import type { MqMetrics } from '../metrics.js';
import type { QueueStore } from '../queues/queue-store.js';
import type { Message, MqLogger, NewMessage, ReserveResult } from '../types.js';

export interface ReserveOptions {
  n: number;
  /** Seconds; undefined = the queue's message_timeout. */
  timeout?: number;
  /** Remove the messages as they are reserved. */
  delete?: boolean;
}

/** Stands for whatever reservation a message has: version 1 acts on messages without reservation ids. */
export const anyReservation = { any: true } as const;
export type ReservationRef = string | typeof anyReservation;

/** A message taken over from another queue (dead letter hand-over) with its id and count. */
export interface TransferredMessage {
  id: string;
  body: string;
  reservedCount: number;
  /** JSON text or ''. */
  pushHeaders: string;
}

export interface DeleteTarget {
  id: string;
  /** Undefined: the message must not be reserved. */
  reservationId?: ReservationRef;
}

const MESSAGE_NOT_FOUND = 'Message not found';

/**
 * One post script writes at most this many messages and about this many bytes of them, so
 * a big request runs as several short scripts and never holds Redis for long.
 */
const POST_CHUNK_MESSAGES = 100;
const POST_CHUNK_BYTES = 256 * 1024;

type Row = [string, string, number, string, number, number, number?];

/** Splits rows into runs of at most POST_CHUNK_MESSAGES and (but for a single big message) POST_CHUNK_BYTES. */
export function postChunks<T extends Row>(rows: T[]): T[][] {
  return boundedChunks(rows, POST_CHUNK_MESSAGES, POST_CHUNK_BYTES, (row) => row[1].length + row[3].length + 64);
}

function refusal(outcome: number, id?: string): Error {
  const about = id === undefined ? '' : `: ${id}`;
  if (outcome === MISSING_QUEUE) return notFound('Queue not found');
  if (outcome === Outcome.notFound) return notFound(MESSAGE_NOT_FOUND + about);
  if (outcome === Outcome.reserved) return forbidden(`Message is reserved; its reservation_id is required${about}`);
  if (outcome === Outcome.notReserved) return forbidden(`Message is not reserved${about}`);
  return forbidden(`Reservation timed out${about}`);
}

/** The script argument for a reservation; a client's '*' is just a reservation id that never matches. */
function reservationArg(reservation: ReservationRef | undefined): string {
  if (reservation === undefined) return '';
  if (typeof reservation !== 'string') return ANY_RESERVATION;
  return reservation === ANY_RESERVATION ? ' *' : reservation;
}

function parseHeaders(text: string): Record<string, string> | undefined {
  return text === '' ? undefined : (JSON.parse(text) as Record<string, string>);
}

/** Reservation ids: a random prefix per call (30 hex digits), two hex digits per message of the call. */
function reservationPrefix(): string {
  // randomUUID draws from a pooled entropy cache: much cheaper per call than randomBytes.
  return randomUUID().replace(/-/g, '').slice(0, 30);
}

/**
 * The message operations of a queue, each one Lua script over the queue's keys. The API
 * versions share them; every operation on a missing queue answers 404 `Queue not found`
 * except posting, which creates the queue.
 */
export class MessageStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: MqKeys,
    private readonly queues: QueueStore,
    private readonly log: MqLogger,
    private readonly metrics: MqMetrics | null = null,
  ) {}

  /** Posts messages in order (counted, whoever posts: clients, alerts, push error reports); returns their ids in the same order. */
  async post(ref: QueueRef, messages: NewMessage[], maxQueueBytes?: number): Promise<string[]> {
    const ids = messages.map(() => newMessageId());
    await this.insert(
      ref,
      messages.map((message, i) => [
        ids[i]!,
        message.body,
        message.delay ?? 0,
        message.pushHeaders ? JSON.stringify(message.pushHeaders) : '',
        0,
        message.expiresIn ?? 0,
        message.timeout ?? 0,
      ]),
      'fresh ids',
      maxQueueBytes,
    );
    this.metrics?.posted.inc(ids.length);
    return ids;
  }

  /** Puts messages that keep their id and reserved_count (dead letter hand-over); repeats are skipped. */
  async transfer(ref: QueueRef, messages: TransferredMessage[]): Promise<void> {
    await this.insert(
      ref,
      messages.map((message) => [message.id, message.body, 0, message.pushHeaders, message.reservedCount, 0]),
      'ids may repeat',
    );
  }

  /**
   * Messages as [id, body, delay, push headers JSON or '', reserved_count, expires in (0 = the
   * queue's), timeout (0 = the queue's)], written in order, one bounded chunk per script. Ids
   * that may repeat are looked up first and those already on the queue skipped.
   */
  private async insert(
    ref: QueueRef,
    messages: Row[],
    ids: 'fresh ids' | 'ids may repeat',
    maxQueueBytes?: number,
  ): Promise<void> {
    // The first chunk checks the whole post against the queue's byte quota: a refused post stores nothing.
    let limit = maxQueueBytes === undefined ? '' : String(maxQueueBytes);
    const bytes = messages.reduce((sum, row) => sum + Buffer.byteLength(row[1]), 0);
    for (const chunk of postChunks(messages)) {
      const [created, inserted, alerts] = await scripts.postMessages.run<[number, number, string]>(
        this.redis,
        this.keys.queue(ref),
        [
          LIMITS.defaultExpirationSeconds,
          this.keys.wakeChannel(ref),
          JSON.stringify(chunk),
          ids === 'ids may repeat' ? '1' : '0',
          limit,
          bytes,
        ],
      );
      if (inserted === -1)
        throw byteQuotaReached('queue_bytes', maxQueueBytes ?? 0, `the queue ${ref.name} (its messages' bodies)`);
      limit = '';
      if (created === 1) await this.queues.indexCreated(ref);
      await this.raiseAlerts(ref, alerts);
    }
  }

  /** Fires the alerts a size change crossed (atomically decided by the script that made it). */
  async checkAlerts(ref: QueueRef): Promise<void> {
    await this.raiseAlerts(ref, await scripts.checkAlerts.run<string>(this.redis, this.keys.queue(ref)));
  }

  /**
   * Posts one message per fired alert to its target queue (another hash tag, so a second step);
   * like dead letter hand-over it is best effort: a failure is logged, the source operation stands.
   */
  private async raiseAlerts(source: QueueRef, reply: unknown): Promise<void> {
    for (const fired of parseFiredAlerts(reply)) {
      try {
        await this.post({ projectId: source.projectId, name: fired.queue }, [
          { body: alertMessageBody(source, fired) },
        ]);
      } catch (error) {
        this.log.warn({ err: error, queue: source.name, alert: fired.id }, 'alert message could not be posted');
      }
    }
  }

  async reserve(ref: QueueRef, options: ReserveOptions): Promise<ReserveResult> {
    const reply = await scripts.reserve.run<string | number>(this.redis, this.keys.queue(ref), [
      options.n,
      options.timeout ?? 0,
      options.delete ? '1' : '0',
      reservationPrefix(),
      LIMITS.defaultTimeoutSeconds,
    ]);
    if (reply === MISSING_QUEUE) throw refusal(MISSING_QUEUE);
    const result = JSON.parse(String(reply)) as {
      moved: number;
      expired: number;
      due: number;
      timeout: number;
      alerts: string;
      messages: Array<[string, string, number, string, string, number]> | object;
    };
    // Lua's JSON encoder writes an empty list as {}.
    const rows = Array.isArray(result.messages) ? result.messages : [];
    const messages = rows.map(([id, body, reservedCount, reservationId, headers, timeout]) => ({
      id,
      body,
      reservedCount,
      reservationId,
      pushHeaders: parseHeaders(headers),
      timeout,
    }));
    await this.raiseAlerts(ref, result.alerts);
    return {
      messages,
      movedToDeadLetter: result.moved,
      expired: result.expired,
      nextDueMs: result.due,
      timeout: result.timeout,
    };
  }

  /** The first n available messages, not reserved. */
  async peek(ref: QueueRef, n: number): Promise<Message[]> {
    const reply = await scripts.peek.run<string | number>(this.redis, this.keys.queue(ref), [
      n,
      LIMITS.defaultTimeoutSeconds,
    ]);
    if (reply === MISSING_QUEUE) throw refusal(MISSING_QUEUE);
    const result = JSON.parse(String(reply)) as {
      expired: number;
      messages: Array<[string, string, number, string, number]> | object;
    };
    this.metrics?.expired.inc(result.expired);
    // Lua's JSON encoder writes an empty list as {}.
    const rows = Array.isArray(result.messages) ? result.messages : [];
    return rows.map(([id, body, reservedCount, headers, timeout]) => ({
      id,
      body,
      reservedCount,
      pushHeaders: parseHeaders(headers),
      timeout,
    }));
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
      pushHeaders: parseHeaders(String(reply[3])),
      timeout: Number(reply[4]),
    };
  }

  /** Deletes all the targets or, when one may not be deleted, none (the error names it). */
  async delete(ref: QueueRef, targets: DeleteTarget[]): Promise<void> {
    // Straight to the script's arguments: no JSON to write here nor to decode there.
    const args: string[] = [];
    for (const target of targets) args.push(target.id, reservationArg(target.reservationId));
    const [outcome, position, alerts] = await scripts.deleteMessages.run<[number, number?, string?]>(
      this.redis,
      this.keys.queue(ref),
      args,
    );
    if (outcome === Outcome.ok) return this.raiseAlerts(ref, alerts);
    throw refusal(outcome!, targets.length > 1 && position !== undefined ? targets[position - 1]!.id : undefined);
  }

  /** Renews a live reservation (for `timeout`, else the message's own timeout); returns the new reservation id. */
  async touch(
    ref: QueueRef,
    id: string,
    reservationId: ReservationRef,
    timeout?: number,
  ): Promise<{ reservationId: string; reservedCount: number }> {
    const next = `${reservationPrefix()}00`;
    const [outcome, reservedCount] = await scripts.touch.run<number[]>(this.redis, this.keys.queue(ref), [
      id,
      reservationArg(reservationId),
      timeout ?? 0,
      next,
      LIMITS.defaultTimeoutSeconds,
    ]);
    if (outcome !== Outcome.ok) throw refusal(outcome!);
    return { reservationId: next, reservedCount: reservedCount! };
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

  /** Takes up to `count` messages out of a queue's dead letter outbox (see reserve.lua). */
  async takeDeadLetterOutbox(ref: QueueRef, count: number): Promise<Array<TransferredMessage & { queue: string }>> {
    const outbox = this.keys.queue(ref)[DEAD_LETTER_OUTBOX_KEY]!;
    const items = (await this.redis.lpop(outbox, count)) ?? [];
    return items.map((item) => {
      const record = JSON.parse(item) as {
        id: string;
        body: string;
        reserved_count: number;
        push_headers: string;
        queue: string;
      };
      return {
        id: record.id,
        body: record.body,
        reservedCount: record.reserved_count,
        pushHeaders: record.push_headers,
        queue: record.queue,
      };
    });
  }
}
