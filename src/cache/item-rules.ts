import { fail } from '../core/errors.js';

/** The limits and input rules of cache names, item keys and values. */

export const MAX_KEY_BYTES = 250;
export const MAX_CACHE_NAME_BYTES = 255;
export const MAX_EXPIRES_IN_SECONDS = 604_800;
export const CACHES_PER_PAGE = 100;
export const MAX_PAGE = 100;
/** Memcached flags are an unsigned 32-bit integer. */
export const MAX_FLAGS = 4_294_967_295;

// Control characters and '/' cannot travel in one URL path segment of every client.
const UNSAFE_NAME_CHARACTERS = /[\p{Cc}/]/u;

export function checkCacheName(name: string): void {
  if (name === '' || name === '.' || name === '..') throw fail('cache_name_reserved');
  if (Buffer.byteLength(name) > MAX_CACHE_NAME_BYTES) {
    throw fail('cache_name_too_long', MAX_CACHE_NAME_BYTES);
  }
  if (UNSAFE_NAME_CHARACTERS.test(name)) throw fail('cache_name_unsafe');
}

export function checkItemKey(key: string): void {
  if (key === '') throw fail('field_empty', 'key');
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw fail('item_key_too_long', MAX_KEY_BYTES);
}

/** A value as stored (its JSON text, or its UTF-8 bytes) and its size as the value limit reads it. */
export interface EncodedValue {
  json: string | Buffer;
  size: number;
}

/** A value's size: a string's own UTF-8 length, any other value's the length of its JSON text `json`. */
export function valueSize(value: unknown, json: string): number {
  return Buffer.byteLength(typeof value === 'string' ? value : json);
}

/** An encoded value within `maxBytes` (413 past it). */
export function checkedValue(encoded: EncodedValue, maxBytes: number): EncodedValue {
  if (encoded.size > maxBytes) throw fail('item_value_too_large', encoded.size, maxBytes);
  return encoded;
}

/** The JSON text an item value is stored as, within `maxBytes` (see valueSize). */
export function encodeValue(value: unknown, maxBytes: number): string {
  if (value === null) throw fail('item_value_null');
  const json = JSON.stringify(value);
  checkedValue({ json, size: valueSize(value, json) }, maxBytes);
  return json;
}

export type PutCondition = { kind: 'always' } | { kind: 'add' } | { kind: 'replace' } | { kind: 'cas'; cas: string };

const CAS_TEXT = /^[1-9]\d{0,15}$/;

/** The condition of a put from its `add`, `replace` and `cas` fields. */
export function putCondition(fields: { add?: boolean; replace?: boolean; cas?: unknown }): PutCondition {
  if (fields.add && fields.replace) throw fail('put_add_and_replace');
  if (fields.cas !== undefined) {
    if (fields.add) throw fail('put_cas_with_add');
    const cas = typeof fields.cas === 'number' || typeof fields.cas === 'string' ? String(fields.cas) : '';
    if (!CAS_TEXT.test(cas)) throw fail('put_cas_invalid');
    return { kind: 'cas', cas };
  }
  if (fields.add) return { kind: 'add' };
  if (fields.replace) return { kind: 'replace' };
  return { kind: 'always' };
}

export function checkAmount(amount: number): void {
  if (!Number.isSafeInteger(amount)) throw fail('increment_amount_invalid');
}
