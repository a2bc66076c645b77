import { badRequest, payloadTooLarge } from '../core/errors.js';

/** The limits and input rules of cache names, item keys and values. */

export const MAX_KEY_BYTES = 250;
export const MAX_CACHE_NAME_BYTES = 255;
export const MAX_EXPIRES_IN_SECONDS = 604_800;
export const CACHES_PER_PAGE = 100;
export const MAX_PAGE = 100;

// Control characters and '/' cannot travel in one URL path segment of every client.
const UNSAFE_NAME_CHARACTERS = /[\p{Cc}/]/u;

export function checkCacheName(name: string): void {
  if (name === '' || name === '.' || name === '..') throw badRequest('cache name must not be empty, "." or ".."');
  if (Buffer.byteLength(name) > MAX_CACHE_NAME_BYTES) {
    throw badRequest(`cache name must be at most ${MAX_CACHE_NAME_BYTES} bytes`);
  }
  if (UNSAFE_NAME_CHARACTERS.test(name)) throw badRequest('cache name must not contain "/" or control characters');
}

export function checkItemKey(key: string): void {
  if (key === '') throw badRequest('key must not be empty');
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw badRequest(`key must be at most ${MAX_KEY_BYTES} bytes`);
}

/**
 * The JSON text an item value is stored as. A string's size is its own UTF-8 length;
 * any other value's is the length of its JSON text.
 */
export function encodeValue(value: unknown, maxBytes: number): string {
  if (value === null) throw badRequest('value must not be null');
  const json = JSON.stringify(value);
  const bytes = Buffer.byteLength(typeof value === 'string' ? value : json);
  if (bytes > maxBytes) throw payloadTooLarge(`value is ${bytes} bytes; the limit is ${maxBytes} bytes`);
  return json;
}

export type PutCondition = { kind: 'always' } | { kind: 'add' } | { kind: 'replace' } | { kind: 'cas'; cas: string };

const CAS_TEXT = /^[1-9]\d{0,15}$/;

/** The condition of a put from its `add`, `replace` and `cas` fields. */
export function putCondition(fields: { add?: boolean; replace?: boolean; cas?: unknown }): PutCondition {
  if (fields.add && fields.replace) throw badRequest('add and replace cannot both be true');
  if (fields.cas !== undefined) {
    if (fields.add) throw badRequest('cas cannot be combined with add: cas needs an existing item');
    const cas = typeof fields.cas === 'number' || typeof fields.cas === 'string' ? String(fields.cas) : '';
    if (!CAS_TEXT.test(cas)) throw badRequest('cas must be a positive integer, as returned by a get');
    return { kind: 'cas', cas };
  }
  if (fields.add) return { kind: 'add' };
  if (fields.replace) return { kind: 'replace' };
  return { kind: 'always' };
}

export function checkAmount(amount: number): void {
  if (!Number.isSafeInteger(amount)) {
    throw badRequest(`amount must be an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`);
  }
}
