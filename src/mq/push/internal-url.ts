import { fail } from '../../core/errors.js';
import { checkQueueName } from '../fields.js';

/**
 * The platform's own subscribers: `ironmq:///<queue>` posts each message to a queue of the
 * same project, `ironworker:///<code>` queues a task of that code with the message body as
 * its payload. Three slashes: no token, host or project, so a tenant reaches only its own
 * project.
 */
export type InternalTarget = { kind: 'queue'; name: string } | { kind: 'code'; name: string };

const SCHEMES = { ironmq: 'queue', ironworker: 'code' } as const;
const INTERNAL = /^(ironmq|ironworker):(.*)$/is;
const MAX_CODE_NAME_LENGTH = 255;

/** Whether `url` names an internal subscriber (its scheme is ironmq or ironworker). */
export function isInternalUrl(url: string): boolean {
  return INTERNAL.test(url);
}

/**
 * The target of an internal subscriber URL, checked: 400 naming `field` and what is wrong.
 * Only called for URLs `isInternalUrl` accepts.
 */
export function parseInternalUrl(url: string, field: string): InternalTarget {
  const [, schemeText, rest] = INTERNAL.exec(url) ?? [];
  const scheme = schemeText!.toLowerCase() as keyof typeof SCHEMES;
  const what = SCHEMES[scheme] === 'queue' ? 'queue' : 'code';
  const form = `${scheme}:///<${what} name>`;
  const parts = /^\/\/([^/?#]*)\/([^?#]*)$/.exec(rest!);
  if (!parts) throw fail('mq_internal_url_form', field, form);
  if (parts[1] !== '') {
    throw fail('mq_internal_url_elsewhere', field, scheme, form);
  }
  const name = decodeName(parts[2]!, field);
  if (what === 'queue') checkQueueName(name, `${field} queue name`);
  else checkCodeName(name, `${field} code name`);
  return { kind: what, name };
}

/** The target of a stored subscriber URL, or null for an HTTP one. */
export function internalTargetOf(url: string): InternalTarget | null {
  return isInternalUrl(url) ? parseInternalUrl(url, 'url') : null;
}

function decodeName(encoded: string, field: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw fail('mq_internal_url_escape', field);
  }
}

function checkCodeName(name: string, field: string): void {
  if (name === '') throw fail('field_empty', field);
  if (name.length > MAX_CODE_NAME_LENGTH) throw fail('field_too_many_characters', field, MAX_CODE_NAME_LENGTH);
}

/** 400 when one of a queue's subscribers is `ironmq:///` of the queue itself (an endless loop). */
export function checkNoSelfPush(queueName: string, subscribers: ReadonlyArray<{ url: string }>): void {
  for (const { url } of subscribers) {
    const target = internalTargetOf(url);
    if (target?.kind === 'queue' && target.name === queueName) throw fail('mq_self_push', url);
  }
}
