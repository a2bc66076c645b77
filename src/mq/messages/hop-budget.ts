import { LIMITS } from '../limits.js';

/**
 * Every message Ferrum itself produces (an `ironmq:///` delivery's copy, an alert's message, a
 * push error report) carries how many more hops it may travel, one less than the message that
 * caused it; a message with none left causes nothing more (its deliveries fail, its report is
 * dropped). Loops among queues, however they were built, so end after LIMITS.hopBudget hops.
 *
 * The count is stored as a push header of the message (the queue's `headers` hash, which every
 * release keeps and deletes with the message): earlier releases read it as an ordinary header,
 * at worst sending it on to HTTP subscribers. Tenants may not set it (a reserved header name);
 * API answers and deliveries leave it out.
 */
export const HOP_HEADER = 'ferrum-hops-left';

/** Hops a message with these push headers may still travel (a client's message: the whole budget). */
export function hopsLeftOf(headers: Record<string, string> | undefined): number {
  const stored = headers?.[HOP_HEADER];
  if (stored === undefined) return LIMITS.hopBudget;
  const hops = Number.parseInt(stored, 10);
  return Number.isFinite(hops) ? Math.min(Math.max(hops, 0), LIMITS.hopBudget) : 0;
}

/** The push headers of a message produced with `hops` left to travel. */
export function hopHeaders(hops: number): Record<string, string> {
  return { [HOP_HEADER]: String(hops) };
}

/** A message's push headers as tenants see them: without the hop count. */
export function visibleHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers || !(HOP_HEADER in headers)) return headers;
  const { [HOP_HEADER]: _hops, ...visible } = headers;
  return Object.keys(visible).length > 0 ? visible : undefined;
}

/** A message's stored push headers (JSON text or ''): what tenants see, and its hops left. */
export function readHeaders(text: string): { pushHeaders?: Record<string, string>; hopsLeft: number } {
  if (text === '') return { hopsLeft: LIMITS.hopBudget };
  const headers = JSON.parse(text) as Record<string, string>;
  return { pushHeaders: visibleHeaders(headers), hopsLeft: hopsLeftOf(headers) };
}

/** Stored push headers (JSON text or '') as tenants see them, as JSON text or ''. */
export function visibleHeadersText(text: string): string {
  if (!text.includes(HOP_HEADER)) return text;
  const visible = visibleHeaders(JSON.parse(text) as Record<string, string>);
  return visible ? JSON.stringify(visible) : '';
}
