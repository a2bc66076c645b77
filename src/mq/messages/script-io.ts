// The arguments the message scripts take and the replies they give, translated once here.
import { randomUUID } from 'node:crypto';
import { boundedChunks } from '../../core/chunks.js';
import { fail, type HttpError } from '../../core/errors.js';
import { readHeaders, visibleHeadersText } from './hop-budget.js';
import { ANY_RESERVATION, MISSING_QUEUE, Outcome } from '../scripts.js';
import type { Message, ReservedJsonPieces, ReservedMessage, ReserveResult } from '../types.js';

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
export type PostRow = [string, string | Buffer, number, string, number, number, number?];

/**
 * post-messages.lua's arguments for `rows`, after its fixed ones: the ids joined, the bodies'
 * byte lengths joined, the bodies one after the other ('' when they go `apart`, see post-chunk.ts),
 * and the other fields as JSON unless every one is its default (a plain post).
 */
export function postArgs(rows: PostRow[], bodies: 'joined' | 'apart' = 'joined'): Array<string | Buffer> {
  const plain = rows.every((row) => row[2] === 0 && row[3] === '' && row[4] === 0 && row[5] === 0 && !row[6]);
  let ids = '';
  let lengths = '';
  for (let i = 0; i < rows.length; i++) {
    const [id, body] = rows[i]!;
    const comma = i === 0 ? '' : ',';
    ids += comma + id;
    lengths += comma + Buffer.byteLength(body);
  }
  const extras = plain ? '' : JSON.stringify(rows.map((row) => [row[2], row[3], row[4], row[5], row[6] ?? 0]));
  return [ids, lengths, bodies === 'apart' ? '' : joinedBodies(rows), extras];
}

/**
 * The bodies one after the other: text, or bytes when one of them is given as bytes (passed on as
 * they are; bodies read one after the other in one buffer, as a large post's are, are not copied).
 */
function joinedBodies(rows: PostRow[]): string | Buffer {
  if (rows.length === 1) return rows[0]![1];
  if (rows.every((row) => typeof row[1] === 'string')) return rows.map((row) => row[1]).join('');
  const bodies = rows.map((row) => row[1]);
  return (
    adjacentSpan(bodies) ?? Buffer.concat(bodies.map((body) => (typeof body === 'string' ? Buffer.from(body) : body)))
  );
}

/** The view spanning `parts` when each starts where the one before ends, in one buffer; else null. */
function adjacentSpan(parts: Array<string | Buffer>): Buffer | null {
  const first = parts[0];
  if (typeof first !== 'object') return null;
  let end = first.byteOffset + first.length;
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!;
    if (typeof part === 'string' || part.buffer !== first.buffer || part.byteOffset !== end) return null;
    end += part.length;
  }
  return Buffer.from(first.buffer, first.byteOffset, end - first.byteOffset);
}

/** Splits rows into runs of at most POST_CHUNK_MESSAGES and (but for a single big message) POST_CHUNK_BYTES. */
export function postChunks<T extends PostRow>(rows: T[]): T[][] {
  return boundedChunks(rows, POST_CHUNK_MESSAGES, POST_CHUNK_BYTES, (row) => row[1].length + row[3].length + 64);
}

/** The error for a script's refusal `outcome` (lua/includes/queue-keys.lua's codes), naming message `id` when given. */
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

/**
 * reserve.lua's arguments after its fixed ones for the messages it deletes first: their count,
 * their ids, then their reservation ids (a client's '*' as reservationArg writes it).
 */
export function deleteArgs(deletes: { ids: string[]; reservationIds: string[] } | null | undefined): string[] {
  if (!deletes || deletes.ids.length === 0) return [];
  const { ids, reservationIds } = deletes;
  const args = new Array<string>(1 + 2 * ids.length);
  args[0] = String(ids.length);
  for (let i = 0; i < ids.length; i++) {
    args[1 + i] = ids[i]!;
    args[1 + ids.length + i] = reservationArg(reservationIds[i]);
  }
  return args;
}

/** Reservation ids: a random prefix per call (30 hex digits), two hex digits per message of the call. */
export function reservationPrefix(): string {
  // randomUUID draws from a pooled entropy cache: much cheaper per call than randomBytes.
  return randomUUID().replace(/-/g, '').slice(0, 30);
}

/**
 * reserve.lua's reply: moved, expired, due, timeout, fired alerts (JSON), then the reserved
 * messages' ids, reservation ids, reserved_counts (each joined by commas), bodies (cjson's JSON
 * list of strings), push headers (a JSON list of JSON texts or '', or '' for none) and timeouts
 * (joined by commas, or '' when each is `timeout`), then the outcome of each message deleted first
 * (joined by commas, '' for none; a release before this one does not send it), and with 'bytes'
 * bodies (the bodies then one after the other, as stored) their byte lengths joined by commas.
 */
export type ReserveReply = [
  number,
  number,
  number,
  number,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string?,
  string?,
];

/**
 * What reserve.lua's reply says. Its messages are read only as the caller asks: as pieces of JSON
 * text (version 3 writes its answer from them, no body decoded), or as parsed messages (version 1,
 * push delivery).
 */
export function reserveResult(reply: ReserveReply): { result: ReserveResult; alerts: string } {
  return { result: new ReservedBatch(reply, null), alerts: reply[4] };
}

/** How reserve.lua is asked to send the bodies: a JSON list (for answers), or bytes as stored (passed on). */
export type ReservedBodies = 'json' | 'bytes';

/**
 * reserve.lua's reply with 'bytes' bodies, read as bytes (LuaScript.runForBytes): its small fields
 * as text, its bodies as views of the bytes Redis sent, split at the byte lengths it gave (the
 * reply's last field). The bodies are never decoded unless a message's text is asked for.
 */
export function reserveResultOfBytes(reply: Array<Buffer | number>): { result: ReserveResult; alerts: string } {
  const text = reply.map((field, i) => (i === 8 || typeof field === 'number' ? '' : field.toString()));
  for (let i = 0; i < 4; i++) text[i] = reply[i] as unknown as string;
  const fields = text as unknown as ReserveReply;
  return { result: new ReservedBatch(fields, bodyViews(reply[8] as Buffer, text[12] ?? '')), alerts: fields[4] };
}

function bodyViews(bodies: Buffer, lengths: string): Buffer[] {
  if (lengths === '') return [];
  let at = 0;
  return lengths.split(',').map((length) => bodies.subarray(at, (at += Number(length))));
}

class ReservedBatch implements ReserveResult {
  readonly count: number;
  readonly movedToDeadLetter: number;
  readonly expired: number;
  readonly nextDueMs: number;
  readonly timeout: number;
  deleteOutcomes: number[];
  private readonly ids: string[];
  private parsed: ReservedMessage[] | undefined;
  private pieces: ReservedJsonPieces | undefined;

  constructor(
    private readonly reply: ReserveReply,
    /** The bodies as bytes, when reserve.lua sent them so ('bytes'); else reply[8] is their JSON list. */
    private readonly bodyBytes: Buffer[] | null,
  ) {
    this.movedToDeadLetter = reply[0];
    this.expired = reply[1];
    this.nextDueMs = reply[2];
    this.timeout = reply[3];
    this.ids = reply[5] === '' ? [] : reply[5].split(',');
    this.count = this.ids.length;
    this.deleteOutcomes = reply[11] ? reply[11].split(',').map(Number) : [];
  }

  get jsonPieces(): ReservedJsonPieces {
    return (this.pieces ??= {
      ids: this.ids,
      reservationIds: this.reply[6].split(','),
      reservedCounts: this.reply[7].split(','),
      bodies: this.bodyBytes
        ? this.messages.map((message) => JSON.stringify(message.body))
        : bodyLiterals(this.reply[8], this.ids.length),
      pushHeaders: headersOf(this.reply)?.map(visibleHeadersText) ?? null,
    });
  }

  get messages(): ReservedMessage[] {
    return (this.parsed ??= reservedMessages(this.ids, this.reply, this.timeout, this.bodyBytes));
  }
}

/** The push headers of a reply's messages (JSON text or '' each), or null for none. */
function headersOf(reply: ReserveReply): string[] | null {
  return reply[9] === '' ? null : (JSON.parse(reply[9]) as string[]);
}

function reservedMessages(
  ids: string[],
  reply: ReserveReply,
  timeout: number,
  bodyBytes: Buffer[] | null,
): ReservedMessage[] {
  const reservationIds = reply[6].split(',');
  const counts = reply[7].split(',');
  const bodies = bodyBytes ? null : (JSON.parse(reply[8]) as string[]);
  const headers = headersOf(reply);
  const timeouts = reply[10] === '' ? null : reply[10].split(',');
  return ids.map((id, i) => {
    const message = {
      id,
      body: bodies ? bodies[i]! : '',
      reservedCount: Number(counts[i]),
      reservationId: reservationIds[i]!,
      ...readHeaders(headers ? headers[i]! : ''),
      timeout: timeouts ? Number(timeouts[i]) : timeout,
    };
    return bodyBytes ? withBodyBytes(message, bodyBytes[i]!) : message;
  });
}

/** `message` carrying its body as `bytes`, its text (`body`) decoded from them on first read only. */
function withBodyBytes<T extends Message>(message: T, bytes: Buffer): T {
  let text: string | undefined;
  return Object.defineProperties(message, {
    bytes: { value: bytes, enumerable: true },
    body: { get: () => (text ??= bytes.toString()), enumerable: true },
  });
}

/**
 * The `count` string literals of cjson's JSON list of strings, each as JSON.stringify writes
 * it. Inside a literal every " is escaped, so a literal ends at the first " not escaped.
 */
export function bodyLiterals(list: string, count: number): string[] {
  const literals: string[] = [];
  let start = 1;
  for (let i = 0; i < count; i++) {
    let end = list.indexOf('"', start + 1);
    while (escaped(list, end)) end = list.indexOf('"', end + 1);
    literals.push(asStringified(list.slice(start, end + 1)));
    start = end + 2;
  }
  return literals;
}

/** Whether the character at `at` follows an odd number of backslashes. */
function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

const BACKSLASH = 0x5c;

/**
 * A cjson string literal as JSON.stringify writes it: they differ only in that cjson escapes
 * '/' (as \/) and DEL (as \u007f). Every / cjson writes is escaped, so each \/ is one.
 */
function asStringified(literal: string): string {
  if (!literal.includes('\\')) return literal;
  if (literal.includes('\\u007f')) return JSON.stringify(JSON.parse(literal) as string);
  return literal.replaceAll('\\/', '/');
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
    ...readHeaders(headers),
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
