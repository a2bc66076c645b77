import { randomBytes } from 'node:crypto';

// ObjectId layout: 4 bytes of seconds, 5 random bytes fixed per process, 3 bytes of counter.
const processRandom = randomBytes(5).toString('hex');
let objectIdCounter = randomBytes(3).readUIntBE(0, 3);

/** A 24-hex, time-ordered id for users, projects, tokens, codes, tasks, schedules, clusters. */
export function newObjectId(nowMs: number = Date.now()): string {
  objectIdCounter = (objectIdCounter + 1) & 0xffffff;
  const seconds = Math.floor(nowMs / 1000)
    .toString(16)
    .padStart(8, '0');
  return seconds + processRandom + objectIdCounter.toString(16).padStart(6, '0');
}

/**
 * A 24-hex id ordered by time to the millisecond (the seconds first, as in an ObjectId, so it
 * sorts among ObjectIds too, then the milliseconds) whose other 52 bits are random: no id tells
 * another, unlike an ObjectId's per-process counter. For ids a stranger must not guess (call ids).
 */
export function newUnguessableId(nowMs: number = Date.now()): string {
  const seconds = Math.floor(nowMs / 1000)
    .toString(16)
    .padStart(8, '0');
  const millis = (nowMs % 1000).toString(16).padStart(3, '0');
  return seconds + millis + randomHex13();
}

// Random bytes drawn from the system a pool at a time: one draw per call id was a visible
// share of a hot function call's CPU. Each byte is used once.
const RANDOM_POOL_BYTES = 4096;
let randomPool = Buffer.alloc(0);
let randomAt = 0;

/** 13 hex digits (52 bits) of cryptographic randomness. */
function randomHex13(): string {
  if (randomAt + 7 > randomPool.length) {
    randomPool = randomBytes(RANDOM_POOL_BYTES);
    randomAt = 0;
  }
  randomAt += 7;
  return randomPool.toString('hex', randomAt - 7, randomAt).slice(0, 13);
}

export function isObjectId(value: string): boolean {
  return /^[0-9a-f]{24}$/.test(value);
}

/** The time an ObjectId was made, in epoch milliseconds (second precision). */
export function objectIdTime(id: string): number {
  return parseInt(id.slice(0, 8), 16) * 1000;
}

/** A random secret of `bytes` bytes, URL-safe. */
export function newSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

// Message ids: 64-bit numbers printed in decimal. 42 bits of milliseconds since MESSAGE_EPOCH,
// 10 bits fixed per process, 12 bits of sequence within the millisecond. Ids made by one process
// are strictly increasing; across processes they are ordered by time to the millisecond.
const MESSAGE_EPOCH_MS = 1_577_836_800_000; // 2020-01-01T00:00:00Z
const messageNode = BigInt(randomBytes(2).readUInt16BE(0) & 0x3ff);
let lastMessageMs = 0;
let messageSequence = 0;
// The id of the current millisecond's sequence 0 in decimal, split before its last 6 digits: an id
// of that millisecond is the head and the tail plus its sequence (a BigInt per id cost a post of
// 100 messages some 40 µs).
const TAIL = 1_000_000;
let baseHead = '';
let baseTail = 0;

/** A message id: a decimal string of a 64-bit, time-ordered number. */
export function newMessageId(nowMs: number = Date.now()): string {
  let ms = Math.floor(nowMs) - MESSAGE_EPOCH_MS;
  if (ms <= lastMessageMs) {
    ms = lastMessageMs;
    messageSequence = (messageSequence + 1) & 0xfff;
    // The sequence of this millisecond is used up: borrow the next millisecond.
    if (messageSequence === 0) ms += 1;
  } else {
    messageSequence = 0;
  }
  if (ms !== lastMessageMs || baseHead === '') splitBase(ms);
  lastMessageMs = ms;
  const tail = baseTail + messageSequence;
  if (baseHead !== '' && tail < TAIL) return baseHead + String(tail).padStart(6, '0');
  return ((BigInt(ms) << 22n) | (messageNode << 12n) | BigInt(messageSequence)).toString();
}

function splitBase(ms: number): void {
  const base = ((BigInt(ms) << 22n) | (messageNode << 12n)).toString();
  // Ids of fewer digits (a clock before 2020) are written whole.
  baseHead = base.length > 6 ? base.slice(0, -6) : '';
  baseTail = Number(base.slice(-6));
}

/** The time a message id was made, in epoch milliseconds. */
export function messageIdTime(id: string): number {
  return Number(BigInt(id) >> 22n) + MESSAGE_EPOCH_MS;
}

export function isMessageId(value: string): boolean {
  return /^[0-9]{1,20}$/.test(value);
}
