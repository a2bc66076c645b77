import type { IncomingHttpHeaders } from 'node:http';
import type { FunctionInvocation } from '../../src/functions/calls/function-executor.js';
import { FramingError, addResponseHeader, forwardedHeaders, type HotResponse } from './hot-codec.js';

/** The prefix of the caller's headers, both ways, in the `http-stream` contract. */
const HTTP_HEADER_PREFIX = 'fn-http-h-';
/** Headers of the function's own HTTP exchange with the runner, never the caller's. */
const EXCHANGE_HEADERS = new Set(['date', 'fn-fdk-version', 'fn-fdk-runtime', 'fn-http-status', 'server']);

/**
 * The `http-stream` contract's request: POST /call with the body as is, Fn-Call-Id, Fn-Deadline,
 * Fn-Http-Method, Fn-Http-Request-Url, the caller's headers each as Fn-Http-H-<Name> (and
 * Content-Type as it is).
 */
/** One call as the container's socket gets it: POST /call with these headers and body. */
export interface StreamRequest {
  callId: string;
  headers: Record<string, string>;
  body: Buffer;
}

export function streamRequestOf(invocation: FunctionInvocation, deadline: string): StreamRequest {
  const headers: Record<string, string> = {
    'Fn-Call-Id': invocation.callId,
    'Fn-Deadline': deadline,
    'Fn-Intent': 'httprequest',
    'Fn-Invoke-Type': 'sync',
    'Fn-Http-Method': invocation.method,
    'Fn-Http-Request-Url': invocation.requestUrl,
  };
  for (const [name, value] of forwardedHeaders(invocation.headers)) {
    if (name === 'Host') continue;
    if (name === 'Content-Type') headers['Content-Type'] = value;
    headers[`Fn-Http-H-${name}`] = value;
  }
  return { callId: invocation.callId, headers, body: invocation.body };
}

function statusOf(header: string | string[] | undefined): number | null {
  if (header === undefined) return null;
  const status = Number(Array.isArray(header) ? header[0] : header);
  if (!Number.isInteger(status) || status < 100 || status > 599)
    throw new FramingError(`the function's Fn-Http-Status "${String(header)}" is not an HTTP status`);
  return status;
}

/**
 * The caller's answer from the function's: the status in Fn-Http-Status (else the response's
 * own), headers from Fn-Http-H-<Name> and the plain ones beside them (Content-Type), the body as is.
 */
export function decodeStreamResponse(answered: number, raw: IncomingHttpHeaders, body: Buffer): HotResponse {
  const headers: Record<string, string> = {};
  let prefixed: Record<string, string> | null = null;
  for (const name in raw) {
    const value = raw[name];
    if (value === undefined || EXCHANGE_HEADERS.has(name)) continue;
    if (name.startsWith(HTTP_HEADER_PREFIX)) {
      prefixed ??= {};
      const plain = name.slice(HTTP_HEADER_PREFIX.length);
      if (Array.isArray(value)) for (const item of value) addResponseHeader(prefixed, plain, item);
      else addResponseHeader(prefixed, plain, value);
    } else if (!name.startsWith('fn-')) {
      if (Array.isArray(value)) for (const item of value) addResponseHeader(headers, name, item);
      else addResponseHeader(headers, name, value);
    }
  }
  const status = statusOf(raw['fn-http-status']) ?? answered;
  // The prefixed headers win over the plain ones of the same name.
  return { status, headers: prefixed ? { ...headers, ...prefixed } : headers, body };
}
