import type { FromSchema } from 'json-schema-to-ts';
import { fail } from '../../core/errors.js';
import { PUSH_SCHEMA, V1_SUBSCRIBER_SCHEMA } from './settings-schema.js';
import { LIMITS } from '../limits.js';
import { DEFAULT_SETTINGS, parseSubscribers } from './queue-settings.js';
import type { QueueSettings, QueueType, Subscriber } from '../types.js';

/** Version 1 update queue: the subscriber set is replaced; push_type can turn a queue back to pull. */
export interface V1QueueUpdate {
  pushType?: QueueType;
  /** Subscriber URLs (version 1 subscribers have no name). */
  subscriberUrls?: string[];
  retries?: number;
  retriesDelay?: number;
}

const MAX_SUBSCRIBERS_JSON_BYTES = 64 * 1024;
/** The `push_type` values of a version 1 update (its route schema admits only these). */
export const V1_PUSH_TYPES = ['multicast', 'unicast', 'pull'] as const satisfies readonly QueueType[];

/** A version 1 update body (V1_UPDATE_SCHEMA: types and ranges checked by the route). */
export const V1_UPDATE_SCHEMA = {
  type: 'object',
  properties: {
    subscribers: { type: 'array', items: V1_SUBSCRIBER_SCHEMA },
    push_type: { type: 'string', enum: V1_PUSH_TYPES },
    retries: PUSH_SCHEMA.properties.retries,
    retries_delay: PUSH_SCHEMA.properties.retries_delay,
  },
} as const;

export type V1QueueUpdateBody = FromSchema<typeof V1_UPDATE_SCHEMA>;

/** A version 1 `subscribers` list: objects with a `url` (http or https), at most 64 KB as JSON. */
export function parseV1SubscriberUrls(list: Array<{ url: string }>): string[] {
  if (Buffer.byteLength(JSON.stringify(list)) > MAX_SUBSCRIBERS_JSON_BYTES) {
    throw fail('mq_v1_subscribers_too_big', MAX_SUBSCRIBERS_JSON_BYTES / 1024);
  }
  // Version 1 subscribers have no name: each is named by its place, for parseSubscribers' checks.
  const named = list.map((entry, index) => ({ ...entry, name: String(index) }));
  const urls = parseSubscribers(named, 'subscribers').map((subscriber) => subscriber.url);
  const repeated = urls.findIndex((url, index) => urls.indexOf(url) !== index);
  if (repeated >= 0) throw fail('mq_v1_subscriber_url_twice', repeated);
  return urls;
}

export function parseV1QueueUpdate(body: V1QueueUpdateBody): V1QueueUpdate {
  const update: V1QueueUpdate = {};
  if (body.push_type !== undefined) update.pushType = body.push_type;
  if (body.subscribers !== undefined) update.subscriberUrls = parseV1SubscriberUrls(body.subscribers);
  if (body.retries !== undefined) update.retries = body.retries;
  if (body.retries_delay !== undefined) update.retriesDelay = body.retries_delay;
  return update;
}

/**
 * Subscribers for `urls`: a URL the queue already has keeps that subscriber (its name and
 * headers); a new one is named by its URL.
 */
export function subscribersForUrls(current: Subscriber[], urls: string[]): Subscriber[] {
  return urls.map((url) => current.find((subscriber) => subscriber.url === url) ?? { name: url, url });
}

/**
 * The settings after a version 1 update of `current` (null: the queue is being created). A
 * version 1 push queue may have no subscribers: the hosted service made one from
 * `{"push_type": "multicast"}` alone, and its clients add subscribers afterwards; nothing is
 * pushed until one is added.
 */
export function applyV1QueueUpdate(current: QueueSettings | null, update: V1QueueUpdate): QueueSettings {
  const base = current ?? DEFAULT_SETTINGS;
  const givesSubscribers = (update.subscriberUrls?.length ?? 0) > 0;
  const type = update.pushType ?? (base.type !== 'pull' ? base.type : givesSubscribers ? 'multicast' : 'pull');
  if (type === 'pull') {
    if (givesSubscribers) throw fail('mq_v1_subscribers_on_pull_queue');
    if (update.retries !== undefined || update.retriesDelay !== undefined) {
      throw fail('mq_v1_retries_on_pull_queue');
    }
    const { push: _push, ...pull } = base;
    return { ...pull, type };
  }
  if (base.alerts) throw fail('mq_v1_alerts_on_push_queue');
  if (base.deadLetter) throw fail('mq_v1_dead_letter_on_push_queue');
  const currentSubscribers = base.push?.subscribers ?? [];
  const subscribers = update.subscriberUrls
    ? subscribersForUrls(currentSubscribers, update.subscriberUrls)
    : currentSubscribers;
  return {
    ...base,
    type,
    push: {
      ...base.push,
      subscribers,
      retries: update.retries ?? base.push?.retries ?? LIMITS.defaultRetries,
      retries_delay: update.retriesDelay ?? base.push?.retries_delay ?? LIMITS.defaultRetriesDelaySeconds,
    },
  };
}
