import type { FastifyRequest } from 'fastify';
import { withoutSessionCookie } from '../dashboard-session-cookie.js';

/** The platform's token scheme: `Authorization: OAuth <token>` (other schemes are the function's). */
const PLATFORM_AUTHORIZATION = /^\s*OAuth(\s|$)/i;
/** The query parameter the platform's APIs take a token in. */
const PLATFORM_TOKEN_PARAMETER = 'oauth';
/** Headers the platform sets on a call (Fn-Call-Id, Fn-Deadline, …): a caller's may not pose as them. */
const PLATFORM_HEADER_PREFIX = 'fn-';

/**
 * The caller's headers as the function gets them, names in lower case: without the platform's
 * token (a caller that also uses the management API may send it, and a browser sends the
 * dashboard's session cookie; the function must never see it) nor any Fn-* header of the
 * platform's own.
 */
export function callerHeaders(request: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  const given = request.headers;
  for (const name in given) {
    const value = given[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    const joined = Array.isArray(value) ? value.join(', ') : value;
    if (lower.startsWith(PLATFORM_HEADER_PREFIX)) continue;
    if (lower === 'authorization' && PLATFORM_AUTHORIZATION.test(joined)) continue;
    if (lower === 'cookie') {
      const kept = withoutSessionCookie(joined);
      if (kept !== '') headers.cookie = kept;
      continue;
    }
    headers[lower] = joined;
  }
  return headers;
}

/** The URL the caller asked for, without the platform's `oauth` token parameter (the rest as sent). */
export function callerUrl(request: FastifyRequest): string {
  const [path, query] = splitOnce(request.url, '?');
  const kept = query?.split('&').filter((pair) => parameterName(pair) !== PLATFORM_TOKEN_PARAMETER);
  const url = kept === undefined ? path : kept.length > 0 ? `${path}?${kept.join('&')}` : path;
  return `${request.protocol}://${request.host}${url}`;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

function parameterName(pair: string): string {
  const name = splitOnce(pair, '=')[0].replaceAll('+', ' ');
  try {
    return decodeURIComponent(name).toLowerCase();
  } catch {
    return name.toLowerCase();
  }
}
