import { fail } from '../../core/errors.js';
import { LIMITS, RESERVED_PUSH_HEADER_NAMES } from '../limits.js';

const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Every control character but horizontal tab, which header values may hold.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** Why a header breaks the push header restrictions, or null when it is fine. */
export function pushHeaderProblem(name: string, value: unknown): string | null {
  if (name === '') return 'name must not be empty';
  if (!HTTP_TOKEN.test(name)) return "name must be an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)";
  if (Buffer.byteLength(name) > LIMITS.maxPushHeaderNameBytes)
    return `name must be at most ${LIMITS.maxPushHeaderNameBytes} bytes`;
  if (RESERVED_PUSH_HEADER_NAMES.includes(name.toLowerCase())) return 'name is reserved';
  if (typeof value !== 'string') return 'value must be a string';
  if (value === '') return 'value must not be empty';
  // A CR or LF would end the header in the delivery request and start one of the sender's own.
  if (CONTROL_CHARACTERS.test(value)) return 'value must not contain CR, LF or other control characters';
  if (Buffer.byteLength(value) > LIMITS.maxPushHeaderValueBytes)
    return `value must be at most ${LIMITS.maxPushHeaderValueBytes} bytes`;
  return null;
}

/** Validates a message's push_headers (an object, by its schema): 400 naming the header on any violation. */
export function checkPushHeaders(value: Record<string, unknown>, field: string): Record<string, string> {
  const entries = Object.entries(value);
  if (entries.length > LIMITS.maxPushHeaders) throw fail('mq_too_many_push_headers', field, LIMITS.maxPushHeaders);
  for (const [name, headerValue] of entries) {
    const problem = pushHeaderProblem(name, headerValue);
    if (problem) throw fail('mq_header_problem', field, name, problem);
  }
  return value as Record<string, string>;
}

/**
 * Push headers from a webhook request's `X-Subscribers-<Name>` headers (prefix removed).
 * Headers that break a restriction, and any beyond the maximum count, are dropped silently.
 */
export function pushHeadersFromWebhook(rawHeaders: string[]): Record<string, string> | undefined {
  const prefix = 'x-subscribers-';
  const headers: Record<string, string> = {};
  let count = 0;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const rawName = rawHeaders[i]!;
    if (!rawName.toLowerCase().startsWith(prefix) || count >= LIMITS.maxPushHeaders) continue;
    const name = rawName.slice(prefix.length);
    const value = rawHeaders[i + 1]!;
    if (pushHeaderProblem(name, value) !== null || Object.hasOwn(headers, name)) continue;
    headers[name] = value;
    count += 1;
  }
  return count > 0 ? headers : undefined;
}
