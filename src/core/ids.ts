import { randomBytes } from 'node:crypto';

// ObjectId layout: 4 bytes of seconds, 5 random bytes fixed per process, 3 bytes of counter.
const processRandom = randomBytes(5).toString('hex');
let objectIdCounter = randomBytes(3).readUIntBE(0, 3);

/** A 24-hex, time-ordered id for users, projects, tokens, codes, tasks, schedules, clusters. */
export function newObjectId(nowMs: number = Date.now()): string {
  objectIdCounter = (objectIdCounter + 1) & 0xffffff;
  const seconds = Math.floor(nowMs / 1000).toString(16).padStart(8, '0');
  return seconds + processRandom + objectIdCounter.toString(16).padStart(6, '0');
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
