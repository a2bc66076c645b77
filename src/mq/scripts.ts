import { loadLua } from '../core/lua.js';
import type { KeySpace } from '../core/redis.js';

// The message queue's Lua scripts (src/mq/lua/) and the keys they run on.

/** Loads lua/<name>.lua (includes resolved). */
const mqScript = (name: string) => loadLua(new URL('./lua/', import.meta.url).href, name);

/** Every queue script includes lua/includes/queue-keys.lua (key names, shared constants) first, then one include per function it calls. */
export const scripts = {
  postMessages: mqScript('post-messages'),
  reserve: mqScript('reserve'),
  peek: mqScript('peek'),
  readMessage: mqScript('read-message'),
  deleteMessages: mqScript('delete-messages'),
  withdrawMessages: mqScript('withdraw-messages'),
  touch: mqScript('touch'),
  release: mqScript('release'),
  queueInfo: mqScript('queue-info'),
  saveQueue: mqScript('save-queue'),
  removeSubscribers: mqScript('remove-subscribers'),
  sweep: mqScript('sweep'),
  clearQueue: mqScript('clear-queue'),
  deleteQueue: mqScript('delete-queue'),
};

/** Push scripts (they include the queue's includes and push-common.lua) take the queue's keys followed by the message's push status hash. */
export const pushScripts = {
  finishRound: mqScript('push/finish-round'),
  acknowledge: mqScript('push/acknowledge'),
};

/** Outcomes of the scripts' reservation checks (lua/includes/queue-keys.lua). */
export const MISSING_QUEUE = -1;
export const Outcome = { ok: 0, notFound: 1, timedOut: 2, reserved: 3, notReserved: 4 } as const;

/** A reservation id that stands for whatever reservation a message has (version 1 has none). */
export const ANY_RESERVATION = '*';

/** Where one queue lives: every key shares the hash tag {mq:<project>:<queue>}. */
export interface QueueRef {
  projectId: string;
  name: string;
}

// The order lua/includes/queue-keys.lua expects them in.
export const QUEUE_KEY_PARTS = [
  'queue',
  'ready',
  'delayed',
  'reserved',
  'expiry',
  'body',
  'count',
  'rid',
  'headers',
  'released',
  'dead',
  'timeout',
] as const;

const SIZE_KEY_PARTS = ['ready', 'delayed', 'reserved'] as const;

// Key lists of recently used queues, so hot queues do not rebuild their key strings per request.
const CACHED_QUEUES = 10_000;

function queueTag(ref: QueueRef): string {
  return `{mq:${ref.projectId}:${encodeURIComponent(ref.name)}}`;
}

export class MqKeys {
  private readonly cache = new Map<string, string[]>();

  constructor(private readonly keys: KeySpace) {}

  /** The keys of one queue, in the order every message script takes them. */
  queue(ref: QueueRef): string[] {
    const tag = queueTag(ref);
    let keys = this.cache.get(tag);
    if (!keys) {
      if (this.cache.size >= CACHED_QUEUES) this.cache.clear();
      keys = QUEUE_KEY_PARTS.map((part) => this.keys.of(tag, part));
      this.cache.set(tag, keys);
    }
    return keys;
  }

  /** The keys whose cardinalities add up to a queue's size (ready, delayed, reserved); not cached, for samplers. */
  sizeKeys(ref: QueueRef): string[] {
    const tag = queueTag(ref);
    return SIZE_KEY_PARTS.map((part) => this.keys.of(tag, part));
  }

  /** Hash of one push message's delivery status per subscriber (under the queue's hash tag). */
  pushStatus(ref: QueueRef, messageId: string): string {
    return this.keys.of(queueTag(ref), 'push', messageId);
  }

  /** Set of every push queue (JSON [project, name]), which the push deliverer serves. */
  pushQueueIndex(): string {
    return this.keys.of('mq', 'push-queues');
  }

  /** Pub/sub channel announcing that the set of push queues or their settings changed. */
  pushQueuesChannel(): string {
    return this.keys.of('mq', 'push-queues-changed');
  }

  /** Sorted set (all scores 0) of a project's queue names, for lexicographic listing. */
  queueIndex(projectId: string): string {
    return this.keys.of(`{mq:${projectId}}`, 'queues');
  }

  /** Pub/sub channel announcing that messages became available on a queue. */
  wakeChannel(ref: QueueRef): string {
    return this.keys.of('mq', 'wake', ref.projectId, encodeURIComponent(ref.name));
  }
}

export const QUEUE_KEY = 0;
export const DEAD_LETTER_OUTBOX_KEY = QUEUE_KEY_PARTS.indexOf('dead');
