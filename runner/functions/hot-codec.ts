import type { FunctionInvocation } from '../../src/functions/calls/function-executor.js';

/** One answer of a hot function, as its framing carried it. */
export interface HotResponse {
  status: number;
  /** Names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

/** The function's output does not follow its format: the container can no longer be trusted. */
export class FramingError extends Error {
  override name = 'FramingError';
}

/** Reads a container's stdout, chunk by chunk, into whole responses. One per container. */
export interface ResponseDecoder {
  /** Every response completed by this chunk (usually none or one). Throws FramingError. */
  push(chunk: Buffer): HotResponse[];
}

/** How calls travel to a hot container's stdin and answers come back from its stdout. */
export interface HotCodec {
  /** `deadline`: RFC 3339 time by which the function must have answered. */
  encodeRequest(invocation: FunctionInvocation, deadline: string): Buffer;
  createDecoder(): ResponseDecoder;
}

/** The largest answer a hot function may give; a larger one breaks the container's framing. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Headers that describe one connection or its framing, never forwarded across the hot boundary. */
export const HOP_BY_HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'content-length',
  'te',
  'trailer',
  'upgrade',
  // A function's server would answer it with an interim response the caller never asked us for.
  'expect',
]);

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const UNSAFE_VALUE = /[\r\n\0]/;

/** Canonical forms made so far: callers repeat the same few header names on every call. */
const canonicalNames = new Map<string, string>();
const MOST_CANONICAL_NAMES = 1000;

/** `content-type` → `Content-Type`, the form the original platform's function kits looked up. */
function canonicalHeaderName(name: string): string {
  const known = canonicalNames.get(name);
  if (known !== undefined) return known;
  const canonical = name
    .toLowerCase()
    .replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
  if (canonicalNames.size >= MOST_CANONICAL_NAMES) canonicalNames.clear();
  canonicalNames.set(name, canonical);
  return canonical;
}

/** The caller's headers that may be forwarded to the function (valid, not about the connection), names canonical. */
export function forwardedHeaders(headers: Record<string, string>): [string, string][] {
  // One loop, no intermediate arrays: it runs on every hot call.
  const forwarded: [string, string][] = [];
  for (const name in headers) {
    const value = headers[name]!;
    if (TOKEN.test(name) && !UNSAFE_VALUE.test(value) && !HOP_BY_HOP_HEADERS.has(name.toLowerCase()))
      forwarded.push([canonicalHeaderName(name), value]);
  }
  return forwarded;
}

/** FramingError once an answer being read passes MAX_RESPONSE_BYTES. */
export function checkResponseSize(bytes: number): void {
  if (bytes > MAX_RESPONSE_BYTES)
    throw new FramingError(`the function's response is larger than ${MAX_RESPONSE_BYTES} bytes`);
}

/** Adds one header of the function's answer: lower-case name, repeats joined, framing headers dropped. */
export function addResponseHeader(headers: Record<string, string>, name: string, value: string): void {
  const key = name.toLowerCase();
  if (HOP_BY_HOP_HEADERS.has(key)) return;
  headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
}
