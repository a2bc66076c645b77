import { valueSize } from '../src/cache/item-rules.js';

/**
 * The parts of a request body a route stores as bytes, and their size as the route's limit reads
 * it. For a body the parse pool reads (a large one), they are worked out in its thread beside the
 * parse (controller/http/json-parse-thread.ts), so the event loop every tenant shares never writes
 * or encodes a tenant's megabytes: the handler passes them on to Redis as they are.
 */
export interface BodyBytes {
  /** Views of one buffer of their own, one part after the other (one transfer moves them all). */
  parts: Buffer[];
  size: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `texts` as UTF-8, one after the other in one buffer of their own; `size` their total. */
function packed(texts: string[]): BodyBytes {
  const lengths = texts.map((text) => Buffer.byteLength(text));
  const size = lengths.reduce((sum, length) => sum + length, 0);
  const all = Buffer.allocUnsafeSlow(size);
  let at = 0;
  const parts = texts.map((text, i) => {
    all.write(text, at);
    at += lengths[i]!;
    return all.subarray(at - lengths[i]!, at);
  });
  return { parts, size };
}

/**
 * Each kind a route may name in its `config.bodyBytes`: what its parts are, from the parsed body;
 * null when the body is not of the route's shape (its schema then refuses it, or the handler
 * encodes as for a small body).
 */
export const BODY_BYTES = {
  /** A cache put's `value` as stored (its JSON text), sized as the value limit reads it. */
  cacheValue(body: unknown): BodyBytes | null {
    const value = isObject(body) ? body.value : undefined;
    if (value === undefined || value === null) return null;
    const json = JSON.stringify(value);
    return { parts: packed([json]).parts, size: valueSize(value, json) };
  },
  /** A message post's bodies, each as its UTF-8 bytes, one after the other in one buffer. */
  messageBodies(body: unknown): BodyBytes | null {
    const messages = isObject(body) ? body.messages : undefined;
    if (!Array.isArray(messages)) return null;
    const texts: string[] = [];
    for (const message of messages as unknown[]) {
      if (!isObject(message) || typeof message.body !== 'string') return null;
      texts.push(message.body);
    }
    return packed(texts);
  },
} satisfies Record<string, (body: unknown) => BodyBytes | null>;

export type BodyBytesKind = keyof typeof BODY_BYTES;

/**
 * The parsed body a kind's route reads once its parts are taken as bytes, when that is less than
 * the whole (else the body as parsed): a cache put reads its value's bytes only, so its value
 * (any JSON value but null, as its schema asks) is sent back as `true`, not copied to the event
 * loop every tenant shares (a structured clone of a megabyte value is a fresh megabyte there).
 */
export const BODY_WITHOUT_BYTES: Partial<Record<BodyBytesKind, (body: Record<string, unknown>) => unknown>> = {
  cacheValue: (body) => ({ ...body, value: true }),
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The parts of a large body the route takes as bytes (see BODY_BYTES). */
    bodyBytes?: BodyBytesKind;
  }
  interface FastifyRequest {
    /** The parts the route's `config.bodyBytes` names, when its parse thread worked them out; else null. */
    bodyBytes: BodyBytes | null;
  }
}
