import type { FastifyReply, FastifyRequest } from 'fastify';
import { fail } from '../src/core/errors.js';

/** The dashboard's session: the token in a cookie no script can read (HttpOnly). */
export const SESSION_COOKIE = 'ferrum_session';
/**
 * What every dashboard request carries. A page of another origin cannot send a custom header
 * without a CORS preflight this server never grants, so a request with the session cookie and
 * this header came from the dashboard itself (same-site pages, such as functions on another
 * port of the same host, get the cookie sent with their forms but cannot add the header).
 */
export const DASHBOARD_HEADER = 'x-ferrum-dashboard';

/** The values of the cookies named `name` in a Cookie header. */
function cookieValues(header: string | undefined, name: string): string[] {
  const values: string[] = [];
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) values.push(pair.slice(at + 1).trim());
  }
  return values.filter((value) => value !== '');
}

/**
 * The session cookie's token; every request with it must come from the dashboard, GET included
 * (a GET of messages reserves them, and an <img> on any same-site page sends the cookie). The
 * dashboard reads everything, logs and downloads included, by fetch with the header.
 * Two session cookies mean a page of the same host (another port) planted one with a narrower
 * path, to have the dashboard act as someone else: neither is taken.
 */
export function sessionCookieToken(request: FastifyRequest): string | undefined {
  const tokens = new Set(cookieValues(request.headers.cookie, SESSION_COOKIE));
  if (tokens.size > 1) throw fail('session_cookie_twice');
  const [token] = tokens;
  if (token === undefined) return undefined;
  if (request.headers[DASHBOARD_HEADER] === undefined) throw fail('session_cookie_needs_header', DASHBOARD_HEADER);
  return token;
}

/** A Cookie header without the session cookie (what a function may see of the caller's cookies). */
export function withoutSessionCookie(header: string): string {
  return header
    .split(';')
    .filter((pair) => pair.split('=')[0]!.trim() !== SESSION_COOKIE)
    .join(';')
    .trim();
}

export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean): void {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])].join('; ');
  reply.header('set-cookie', `${SESSION_COOKIE}=${token}; ${attributes}`);
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=0', ...(secure ? ['Secure'] : [])];
  reply.header('set-cookie', `${SESSION_COOKIE}=; ${attributes.join('; ')}`);
}
