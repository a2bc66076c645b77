// The arguments the message scripts take and the replies they give, translated once here.
import { randomUUID } from 'node:crypto';
import { boundedChunks } from '../../core/chunks.js';
import { fail, type HttpError } from '../../core/errors.js';
import { ANY_RESERVATION, MISSING_QUEUE, Outcome } from '../scripts.js';
import type { Message, ReservedMessage } from '../types.js';

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
  /** Given (v3): acknowledge this subscriber's push delivery instead of deleting the message. */
  subscriberName?: string;
}

/**
 * One post script writes at most this many messages and about this many bytes of them, so
 * a big request runs as several short scripts and never holds Redis for long.
 */
const POST_CHUNK_MESSAGES = 100;
const POST_CHUNK_BYTES = 256 * 1024;

/**
 * A message as post-messages.lua takes it: [id, body, delay, push headers JSON or '',
 * reserved_count, expires in (0 = the queue's), timeout (0 = the queue's)].
 */
export type PostRow = [string, string, number, string, number, number, number?];

/**
 * post-messages.lua's arguments for `rows`, after its fixed ones: the ids joined, the bodies'
 * byte lengths joined, the bodies one after the other, and the other fields as JSON unless every
 * one is its default (a plain post).
 */
export function postArgs(rows: PostRow[]): string[] {
  const plain = rows.every((row) => row[2] === 0 && row[3] === '' && row[4] === 0 && row[5] === 0 && !row[6]);
  let ids = '';
  let lengths = '';
  let bodies = '';
  for (let i = 0; i < rows.length; i++) {
    const [id, body] = rows[i]!;
    const comma = i === 0 ? '' : ',';
    ids += comma + id;
    lengths += comma + Buffer.byteLength(body);
    bodies += body;
  }
  const extras = plain ? '' : JSON.stringify(rows.map((row) => [row[2], row[3], row[4], row[5], row[6] ?? 0]));
  return [ids, lengths, bodies, extras];
}

/** Splits rows into runs of at most POST_CHUNK_MESSAGES and (but for a single big message) POST_CHUNK_BYTES. */
export function postChunks<T extends PostRow>(rows: T[]): T[][] {
  return boundedChunks(rows, POST_CHUNK_MESSAGES, POST_CHUNK_BYTES, (row) => row[1].length + row[3].length + 64);
}

/** The error for a script's refusal `outcome` (common.lua's codes), naming message `id` when given. */
export function refusal(outcome: number, id?: string): HttpError {
  const about = id === undefined ? '' : `: ${id}`;
  if (outcome === MISSING_QUEUE) return fail('mq_queue_not_found');
  if (outcome === Outcome.notFound) return fail('mq_message_not_found', about);
  if (outcome === Outcome.reserved) return fail('mq_message_reserved', about);
  if (outcome === Outcome.notReserved) return fail('mq_message_not_reserved', about);
  return fail('mq_reservation_timed_out', about);
}

/** The script argument for a reservation; a client's '*' is just a reservation id that never matches. */
export function reservationArg(reservation: ReservationRef | undefined): string {
  if (reservation === undefined) return '';
  if (typeof reservation !== 'string') return ANY_RESERVATION;
  return reservation === ANY_RESERVATION ? ' *' : reservation;
}

export function parseHeaders(text: string): Record<string, string> | undefined {
  return text === '' ? undefined : (JSON.parse(text) as Record<string, string>);
}

/** Reservation ids: a random prefix per call (30 hex digits), two hex digits per message of the call. */
export function reservationPrefix(): string {
  // randomUUID draws from a pooled entropy cache: much cheaper per call than randomBytes.
  return randomUUID().replace(/-/g, '').slice(0, 30);
}

/** reserve.lua's JSON reply. */
export interface ReserveReply {
  moved: number;
  expired: number;
  due: number;
  timeout: number;
  alerts: string;
  messages: Array<[string, string, number, string, string, number]> | object;
}

/** The reserved messages of reserve.lua's reply. */
export function reservedMessages(reply: ReserveReply): ReservedMessage[] {
  // Lua's JSON encoder writes an empty list as {}.
  const rows = Array.isArray(reply.messages) ? reply.messages : [];
  return rows.map(([id, body, reservedCount, reservationId, headers, timeout]) => ({
    id,
    body,
    reservedCount,
    reservationId,
    pushHeaders: parseHeaders(headers),
    timeout,
  }));
}

/** The messages of peek.lua's JSON reply. */
export function peekedMessages(reply: {
  messages: Array<[string, string, number, string, number]> | object;
}): Message[] {
  // Lua's JSON encoder writes an empty list as {}.
  const rows = Array.isArray(reply.messages) ? reply.messages : [];
  return rows.map(([id, body, reservedCount, headers, timeout]) => ({
    id,
    body,
    reservedCount,
    pushHeaders: parseHeaders(headers),
    timeout,
  }));
}

/** One entry of a queue's dead letter outbox (JSON, written by reserve.lua). */
export function outboxEntry(item: string): TransferredMessage & { queue: string } {
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
}
