import { fail } from '../../core/errors.js';
import { withAlertIds } from '../alerts/alerts.js';
import type { FromSchema } from 'json-schema-to-ts';
import { checkQueueName } from '../fields.js';
import { LIMITS } from '../limits.js';
import { isInternalUrl, parseInternalUrl } from '../push/internal-url.js';
import { pushHeaderProblem } from '../messages/push-headers.js';
import { ALERT_SCHEMA, PUSH_SCHEMA, QUEUE_SETTINGS_SCHEMA, SUBSCRIBER_TO_REMOVE_SCHEMA } from './settings-schema.js';
import {
  type Alert,
  type AlertSpec,
  type DeadLetter,
  type PushSettings,
  type QueueSettings,
  type QueueType,
  type Subscriber,
} from '../types.js';

/** A client's `queue` object, checked field by field; read-only fields are ignored. */
export interface QueueChanges {
  type?: QueueType;
  messageTimeout?: number;
  messageExpiration?: number;
  push?: Partial<PushSettings>;
  /** An empty queue_name asks to remove the setting. */
  deadLetter?: { queue_name: string; max_reservations?: number };
  alerts?: AlertSpec[];
}

export interface SettingLimits {
  minTimeoutSeconds: number;
}

export const DEFAULT_SETTINGS: QueueSettings = {
  type: 'pull',
  messageTimeout: LIMITS.defaultTimeoutSeconds,
  messageExpiration: LIMITS.defaultExpirationSeconds,
};

/** `0` means the default; any other value is at least `min` (a setting, so not in the schema). */
function secondsOrDefault(value: number, field: string, min: number, max: number, fallback: number): number {
  if (value === 0) return fallback;
  if (value < min) throw fail('field_out_of_range', field, min, max);
  return value;
}

export type QueueSettingsBody = FromSchema<typeof QUEUE_SETTINGS_SCHEMA>;
type PushBody = FromSchema<typeof PUSH_SCHEMA>;
/** A subscriber as its route's schema admits it (the url is not required of one to remove). */
type SubscriberBody = FromSchema<typeof SUBSCRIBER_TO_REMOVE_SCHEMA>;
type AlertBody = FromSchema<typeof ALERT_SCHEMA>;

const SUBSCRIBERS_MOVED =
  'push subscribers go in queue.push.subscribers (a list of {"name", "url"}) of a multicast or unicast queue, or ' +
  'to POST/PUT /queues/{queue_name}/subscribers';

/**
 * A version 3 queue create or update body must not carry subscribers where earlier clients
 * put them (`subscribers` beside or inside `queue`): ignoring them would leave a pull queue
 * that the client believes pushes.
 */
export function refuseLegacySubscribers(body: { subscribers?: unknown; queue?: unknown }): void {
  const given = (value: unknown) => value !== undefined && value !== null;
  if (given(body.subscribers)) throw fail('mq_legacy_subscribers', 'subscribers', SUBSCRIBERS_MOVED);
  const queue = body.queue;
  if (typeof queue === 'object' && queue !== null && given((queue as { subscribers?: unknown }).subscribers))
    throw fail('mq_legacy_subscribers', 'queue.subscribers', SUBSCRIBERS_MOVED);
}

/** The changes a `queue` object asks for (checked by QUEUE_SETTINGS_SCHEMA), within the rules a schema cannot say. */
export function parseQueueChanges(queue: QueueSettingsBody | undefined, limits: SettingLimits): QueueChanges {
  if (queue === undefined) return {};
  const changes: QueueChanges = {};
  if (queue.type !== undefined) changes.type = queue.type;
  if (queue.message_timeout !== undefined) {
    changes.messageTimeout = secondsOrDefault(
      queue.message_timeout,
      'queue.message_timeout',
      limits.minTimeoutSeconds,
      LIMITS.maxTimeoutSeconds,
      LIMITS.defaultTimeoutSeconds,
    );
  }
  if (queue.message_expiration !== undefined) {
    const expiration = queue.message_expiration;
    changes.messageExpiration = expiration === 0 ? LIMITS.defaultExpirationSeconds : expiration;
  }
  if (queue.push !== undefined) changes.push = parsePush(queue.push);
  if (queue.dead_letter !== undefined) changes.deadLetter = parseDeadLetter(queue.dead_letter);
  if (queue.alerts !== undefined) changes.alerts = parseAlerts(queue.alerts, 'queue.alerts');
  return changes;
}

function parsePush(push: PushBody): Partial<PushSettings> {
  const parsed: Partial<PushSettings> = {};
  if (push.subscribers !== undefined) parsed.subscribers = parseSubscribers(push.subscribers, 'queue.push.subscribers');
  if (push.retries !== undefined) parsed.retries = push.retries;
  if (push.retries_delay !== undefined) parsed.retries_delay = push.retries_delay;
  if (push.error_queue !== undefined && push.error_queue !== '')
    parsed.error_queue = checkQueueName(push.error_queue, 'queue.push.error_queue');
  if (push.rate !== undefined) parsed.rate = push.rate;
  return parsed;
}

/**
 * A subscriber list (checked by its route's schema, which says which fields are required):
 * names unique, urls http(s), headers within the push header rules.
 */
export function parseSubscribers(list: SubscriberBody[], field: string): Subscriber[] {
  const names = new Set<string>();
  return list.map((entry, index) => {
    const at = `${field}[${index}]`;
    const name = entry.name;
    if (names.has(name)) throw fail('mq_subscriber_name_twice', at, name);
    names.add(name);
    const subscriber: Subscriber = { name, url: '' };
    if (entry.url !== undefined) subscriber.url = checkUrl(entry.url, `${at}.url`);
    if (entry.headers !== undefined) subscriber.headers = checkSubscriberHeaders(entry.headers, `${at}.headers`);
    return subscriber;
  });
}

function checkUrl(text: string, field: string): string {
  if (isInternalUrl(text)) {
    parseInternalUrl(text, field);
    return text;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw fail('mq_url_not_absolute', field);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail('mq_url_scheme', field);
  return text;
}

function checkSubscriberHeaders(headers: Record<string, unknown>, field: string): Record<string, string> {
  for (const [name, headerValue] of Object.entries(headers)) {
    const problem = pushHeaderProblem(name, headerValue);
    if (problem) throw fail('mq_header_problem', field, name, problem);
  }
  return headers as Record<string, string>;
}

function parseDeadLetter(deadLetter: { queue_name: string; max_reservations?: number }): {
  queue_name: string;
  max_reservations?: number;
} {
  const queueName = deadLetter.queue_name;
  if (queueName !== '') checkQueueName(queueName, 'queue.dead_letter.queue_name');
  if (deadLetter.max_reservations === undefined) return { queue_name: queueName };
  return { queue_name: queueName, max_reservations: deadLetter.max_reservations };
}

/** A list of alerts as a client gives them, checked by ALERT_SCHEMA (`field` names the list in errors). */
export function parseAlerts(list: AlertBody[], field: string): AlertSpec[] {
  return list.map((alert, index) => {
    const at = `${field}[${index}]`;
    const parsed: AlertSpec = {
      type: alert.type,
      trigger: alert.trigger,
      direction: alert.direction ?? 'asc',
      queue: checkQueueName(alert.queue, `${at}.queue`),
    };
    if (alert.snooze !== undefined) parsed.snooze = alert.snooze;
    return parsed;
  });
}

/**
 * The settings a queue has after `changes`: `current` is null when the queue is being created.
 * Enforces the rules that depend on both: type fixed after creation, push only on push queues,
 * dead letters and alerts only on pull queues, removing a dead letter setting.
 */
export function applyQueueChanges(name: string, current: QueueSettings | null, changes: QueueChanges): QueueSettings {
  const type = resolveType(current, changes);
  const next: QueueSettings = { ...(current ?? DEFAULT_SETTINGS), type };
  if (changes.messageTimeout !== undefined) next.messageTimeout = changes.messageTimeout;
  if (changes.messageExpiration !== undefined) next.messageExpiration = changes.messageExpiration;
  if (type === 'pull') {
    if (changes.push !== undefined) {
      throw fail('mq_push_on_pull_queue', current !== null);
    }
    if (changes.alerts !== undefined)
      next.alerts = changes.alerts.length > 0 ? withAlertIds(name, current?.alerts, changes.alerts) : undefined;
    if (changes.deadLetter !== undefined)
      next.deadLetter = nextDeadLetter(name, current?.deadLetter, changes.deadLetter);
    return next;
  }
  if (changes.deadLetter !== undefined) throw fail('mq_dead_letter_on_push_queue');
  if (changes.alerts !== undefined) throw fail('mq_alerts_setting_on_push_queue');
  next.push = nextPush(current?.push, changes.push);
  return next;
}

function resolveType(current: QueueSettings | null, changes: QueueChanges): QueueType {
  if (current) {
    if (changes.type !== undefined && changes.type !== current.type) {
      throw fail('mq_queue_type_change', current.type);
    }
    return current.type;
  }
  return changes.type ?? (changes.push !== undefined ? 'multicast' : 'pull');
}

function nextPush(current: PushSettings | undefined, changes: Partial<PushSettings> | undefined): PushSettings {
  const subscribers = changes?.subscribers ?? current?.subscribers;
  if (subscribers === undefined) throw fail('mq_push_subscribers_required');
  if (subscribers.length === 0) throw fail('mq_push_subscribers_empty');
  const push: PushSettings = {
    subscribers,
    retries: changes?.retries ?? current?.retries ?? LIMITS.defaultRetries,
    retries_delay: changes?.retries_delay ?? current?.retries_delay ?? LIMITS.defaultRetriesDelaySeconds,
  };
  const errorQueue = changes?.error_queue ?? current?.error_queue;
  if (errorQueue !== undefined) push.error_queue = errorQueue;
  const rate = changes?.rate ?? current?.rate;
  if (rate !== undefined) push.rate = rate;
  return push;
}

function nextDeadLetter(
  name: string,
  current: DeadLetter | undefined,
  change: { queue_name: string; max_reservations?: number },
): DeadLetter | undefined {
  if (change.queue_name === '') {
    if (!current) throw fail('mq_dead_letter_name_empty');
    return undefined;
  }
  if (change.queue_name === name) throw fail('mq_dead_letter_self');
  return { queue_name: change.queue_name, max_reservations: change.max_reservations ?? LIMITS.defaultMaxReservations };
}

/** Settings as stored in the queue hash (an empty string removes a field). */
export function settingsToFields(settings: QueueSettings): string[] {
  return [
    'type',
    settings.type,
    'timeout',
    String(settings.messageTimeout),
    'expiration',
    String(settings.messageExpiration),
    'push',
    settings.push ? JSON.stringify(settings.push) : '',
    'dead_letter',
    settings.deadLetter ? JSON.stringify(settings.deadLetter) : '',
    'alerts',
    settings.alerts ? JSON.stringify(settings.alerts) : '',
    'api',
    settings.api ? String(settings.api) : '',
  ];
}

export function settingsFromFields(fields: Record<string, string>): QueueSettings {
  const settings: QueueSettings = {
    type: (fields.type as QueueType | undefined) ?? 'pull',
    messageTimeout: Number(fields.timeout ?? LIMITS.defaultTimeoutSeconds),
    messageExpiration: Number(fields.expiration ?? LIMITS.defaultExpirationSeconds),
  };
  if (fields.push) settings.push = JSON.parse(fields.push) as PushSettings;
  if (fields.dead_letter) settings.deadLetter = JSON.parse(fields.dead_letter) as DeadLetter;
  if (fields.alerts) settings.alerts = JSON.parse(fields.alerts) as Alert[];
  if (fields.api === '1' || fields.api === '3') settings.api = Number(fields.api) as 1 | 3;
  return settings;
}

export function isPushQueue(settings: QueueSettings): boolean {
  return settings.type !== 'pull';
}

/** A push queue with someone to push to (a version 1 push queue may have no subscribers). */
export function hasPushWork(settings: QueueSettings): boolean {
  return isPushQueue(settings) && (settings.push?.subscribers.length ?? 0) > 0;
}
