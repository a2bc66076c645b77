import { fail } from '../../core/errors.js';
import { withAlertIds } from '../alerts/alerts.js';
import { integerField, listField, objectField, requiredField, stringField } from '../../core/body-fields.js';
import { checkQueueName } from '../fields.js';
import { LIMITS } from '../limits.js';
import { isInternalUrl, parseInternalUrl } from '../push/internal-url.js';
import { pushHeaderProblem } from '../messages/push-headers.js';
import {
  QUEUE_TYPES,
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

/** `0` means the default for timeout and expiration. */
function secondsOrDefault(value: unknown, field: string, min: number, max: number, fallback: number): number {
  if (value === 0) return fallback;
  return integerField(value, field, min, max);
}

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

export function parseQueueChanges(input: unknown, limits: SettingLimits): QueueChanges {
  if (input === undefined || input === null) return {};
  const queue = objectField(input, 'queue');
  const changes: QueueChanges = {};
  if (queue.type !== undefined) {
    if (!QUEUE_TYPES.includes(queue.type as QueueType)) throw fail('mq_queue_type_unknown', QUEUE_TYPES.join(', '));
    changes.type = queue.type as QueueType;
  }
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
    changes.messageExpiration = secondsOrDefault(
      queue.message_expiration,
      'queue.message_expiration',
      1,
      LIMITS.maxExpirationSeconds,
      LIMITS.defaultExpirationSeconds,
    );
  }
  if (queue.push !== undefined && queue.push !== null) changes.push = parsePush(queue.push);
  if (queue.dead_letter !== undefined && queue.dead_letter !== null)
    changes.deadLetter = parseDeadLetter(queue.dead_letter);
  if (queue.alerts !== undefined && queue.alerts !== null) changes.alerts = parseAlerts(queue.alerts, 'queue.alerts');
  return changes;
}

function parsePush(value: unknown): Partial<PushSettings> {
  const push = objectField(value, 'queue.push');
  const parsed: Partial<PushSettings> = {};
  if (push.subscribers !== undefined) parsed.subscribers = parseSubscribers(push.subscribers, 'queue.push.subscribers');
  if (push.retries !== undefined)
    parsed.retries = integerField(push.retries, 'queue.push.retries', 0, LIMITS.maxRetries);
  if (push.retries_delay !== undefined)
    parsed.retries_delay = integerField(push.retries_delay, 'queue.push.retries_delay', 0);
  if (push.error_queue !== undefined && push.error_queue !== null) {
    const errorQueue = stringField(push.error_queue, 'queue.push.error_queue');
    if (errorQueue !== '') parsed.error_queue = checkQueueName(errorQueue, 'queue.push.error_queue');
  }
  if (push.rate !== undefined && push.rate !== null) {
    if (typeof push.rate !== 'number' || !(push.rate > 0)) throw fail('mq_push_rate_not_positive');
    parsed.rate = push.rate;
  }
  return parsed;
}

/** A subscriber list: names unique, urls http(s), header names and values within the push header rules. */
export function parseSubscribers(value: unknown, field: string, { urlRequired = true } = {}): Subscriber[] {
  const names = new Set<string>();
  return listField(value, field).map((item, index) => {
    const at = `${field}[${index}]`;
    const entry = objectField(item, at);
    const name = stringField(requiredField(entry.name, `${at}.name`), `${at}.name`);
    if (name === '') throw fail('field_empty', `${at}.name`);
    if (names.has(name)) throw fail('mq_subscriber_name_twice', at, name);
    names.add(name);
    const subscriber: Subscriber = { name, url: '' };
    if (urlRequired || entry.url !== undefined)
      subscriber.url = checkUrl(requiredField(entry.url, `${at}.url`), `${at}.url`);
    if (entry.headers !== undefined && entry.headers !== null)
      subscriber.headers = parseSubscriberHeaders(entry.headers, `${at}.headers`);
    return subscriber;
  });
}

function checkUrl(value: unknown, field: string): string {
  const text = stringField(value, field);
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

function parseSubscriberHeaders(value: unknown, field: string): Record<string, string> {
  const headers = objectField(value, field);
  for (const [name, headerValue] of Object.entries(headers)) {
    const problem = pushHeaderProblem(name, headerValue);
    if (problem) throw fail('mq_header_problem', field, name, problem);
  }
  return headers as Record<string, string>;
}

function parseDeadLetter(value: unknown): { queue_name: string; max_reservations?: number } {
  const deadLetter = objectField(value, 'queue.dead_letter');
  const queueName = stringField(
    requiredField(deadLetter.queue_name, 'queue.dead_letter.queue_name'),
    'queue.dead_letter.queue_name',
  );
  if (queueName !== '') checkQueueName(queueName, 'queue.dead_letter.queue_name');
  if (deadLetter.max_reservations === undefined) return { queue_name: queueName };
  return {
    queue_name: queueName,
    max_reservations: integerField(
      deadLetter.max_reservations,
      'queue.dead_letter.max_reservations',
      LIMITS.minReservations,
      LIMITS.maxReservations,
    ),
  };
}

/** A list of alerts as a client gives them (`field` names the list in errors). */
export function parseAlerts(value: unknown, field: string): AlertSpec[] {
  return listField(value, field).map((item, index) => {
    const at = `${field}[${index}]`;
    const alert = objectField(item, at);
    const type = requiredField(alert.type, `${at}.type`);
    if (type !== 'fixed' && type !== 'progressive') throw fail('mq_alert_type', at);
    const direction = alert.direction ?? 'asc';
    if (direction !== 'asc' && direction !== 'desc') throw fail('mq_alert_direction', at);
    const queue = checkQueueName(stringField(requiredField(alert.queue, `${at}.queue`), `${at}.queue`), `${at}.queue`);
    const parsed: AlertSpec = {
      type,
      trigger: integerField(requiredField(alert.trigger, `${at}.trigger`), `${at}.trigger`, 1),
      direction,
      queue,
    };
    if (alert.snooze !== undefined) parsed.snooze = integerField(alert.snooze, `${at}.snooze`, 0);
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
