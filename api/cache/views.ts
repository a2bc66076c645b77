import type { StoredItem } from '../../src/cache/cache-store.js';

/** Wire shapes of the cache service. */

export const msgSchema = { type: 'object', properties: { msg: { type: 'string' } } } as const;

const text = { type: 'string' } as const;

export const projectParams = { type: 'object', required: ['project_id'], properties: { project_id: text } } as const;

export const cacheParams = {
  type: 'object',
  required: ['project_id', 'cache_name'],
  properties: { project_id: text, cache_name: text },
} as const;

export const itemParams = {
  type: 'object',
  required: ['project_id', 'cache_name', 'key'],
  properties: { project_id: text, cache_name: text, key: text },
} as const;

export const cacheListSchema = {
  type: 'array',
  items: { type: 'object', required: ['project_id', 'name'], properties: { project_id: text, name: text } },
} as const;

export const cacheInfoSchema = {
  type: 'object',
  required: ['project_id', 'name', 'size'],
  properties: { project_id: text, name: text, size: { type: 'integer' } },
} as const;

// Items and increment results are written as JSON text by hand rather than through a response
// schema: the stored value is already JSON, and re-parsing it in JavaScript would round
// integers beyond 2^53 that Redis keeps exactly.

// The hosted service printed the expiry of an item that never expires as this far date, and
// its Go clients' tests expect it.
const NEVER_EXPIRES = '9999-01-01T00:00:00Z';

/** An expiry time as the hosted service printed it: whole seconds (rounded up), UTC. */
function expiresText(expiresAt: number | null): string {
  if (expiresAt === null) return NEVER_EXPIRES;
  return new Date(Math.ceil(expiresAt / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function itemJson(cacheName: string, key: string, item: StoredItem): string | Buffer {
  const head = `{"cache":${JSON.stringify(cacheName)},"key":${JSON.stringify(key)},"value":`;
  const tail = `,"cas":${item.cas},"expires":"${expiresText(item.expiresAt)}","flags":${item.flags}}`;
  // A large value read as bytes goes out as bytes: the same answer, byte for byte.
  if (typeof item.json !== 'string') return Buffer.concat([Buffer.from(head), item.json, Buffer.from(tail)]);
  return `${head}${item.json}${tail}`;
}

export function incrementJson(value: string): string {
  return `{"msg":"Added","value":${value}}`;
}
