import type { RedisClient } from '../../core/redis.js';
import { fail } from '../../core/errors.js';
import type { ProjectStorage } from '../../auth/stored-bytes.js';
import { checkNoSelfPush } from '../push/internal-url.js';
import { refusePushLoop } from '../push/push-loops.js';
import { QUEUE_KEY, type MqKeys, type QueueRef, scripts } from '../scripts.js';
import type { Alert, QueueInfo, QueueSettings, Subscriber } from '../types.js';
import { QueueQuotaGate, type QueueQuotas } from './queue-quotas.js';
import {
  applyQueueChanges,
  isPushQueue,
  settingsFromFields,
  settingsToFields,
  type QueueChanges,
} from './queue-settings.js';
import { applyV1QueueUpdate, type V1QueueUpdate } from './v1-queue-update.js';

const SAVE_ATTEMPTS = 10;

export type SubscriberChange = 'add' | 'replace' | 'remove';

export interface ListOptions {
  perPage: number;
  previous?: string;
  prefix?: string;
}

/**
 * Queues: their records (settings, counters, the per-project name index), creation, settings
 * changes with their rules (quotas, push loops), and deletion. Every settings change is one
 * save-queue.lua run (compare-and-set on the record's version).
 */
export class QueueStore {
  /** The queue quotas a post or a new queue passes. */
  readonly quotas: QueueQuotaGate;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: MqKeys,
    storage: ProjectStorage,
    private readonly onExpired: (count: number) => void = () => {},
  ) {
    this.quotas = new QueueQuotaGate(this, storage);
  }

  /** Settings and size of a queue, or null when it does not exist. */
  async info(ref: QueueRef): Promise<QueueInfo | null> {
    const reply = await scripts.queueInfo.run<(string | number)[]>(this.redis, this.keys.queue(ref));
    if (reply.length === 0) return null;
    const [size, expired, ...pairs] = reply;
    if (Number(expired) > 0) this.onExpired(Number(expired));
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < pairs.length; i += 2) fields[String(pairs[i])] = String(pairs[i + 1]);
    return {
      ...settingsFromFields(fields),
      projectId: ref.projectId,
      name: ref.name,
      size: Number(size),
      totalMessages: Number(fields.total ?? 0),
      createdAt: Number(fields.created_at ?? 0),
      updatedAt: Number(fields.updated_at ?? 0),
    };
  }

  async require(ref: QueueRef): Promise<QueueInfo> {
    const info = await this.info(ref);
    if (!info) throw fail('mq_queue_not_found');
    return info;
  }

  /**
   * Changes a queue's settings with `change(current)` (current is null for a new queue),
   * retrying when another writer got there first. Returns the settings written.
   */
  async save(
    ref: QueueRef,
    change: (current: QueueSettings | null) => QueueSettings,
  ): Promise<{ settings: QueueSettings; created: boolean }> {
    const queueKeys = this.keys.queue(ref);
    for (let attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
      const fields = await this.redis.hgetall(queueKeys[QUEUE_KEY]!);
      const version = fields.version ?? '';
      const settings = change(version === '' ? null : settingsFromFields(fields));
      const written = await scripts.saveQueue.run<number>(this.redis, queueKeys, [
        version,
        ...settingsToFields(settings),
      ]);
      if (written === -1) continue;
      if (version === '') await this.indexCreated(ref);
      await this.indexPushQueue(ref, settings.type !== 'pull');
      return { settings, created: version === '' };
    }
    throw fail('mq_queue_save_contended');
  }

  /**
   * Creates (`upsert`) or changes (`update`, the queue must exist) a queue's settings. A named
   * dead letter queue is created with default settings when it does not exist.
   */
  async configure(
    ref: QueueRef,
    changes: QueueChanges,
    mode: 'upsert' | 'update',
    quotas?: QueueQuotas,
  ): Promise<QueueSettings> {
    if (quotas && mode === 'upsert') await this.quotas.checkNewQueue(ref, quotas);
    await this.refusePushLoop(ref, changes.push?.subscribers ?? []);
    const { settings } = await this.save(ref, (current) => {
      if (!current && mode === 'update') throw fail('mq_queue_not_found');
      return withoutSelfPush(ref, { ...applyQueueChanges(ref.name, current, changes), api: 3 });
    });
    if (settings.deadLetter) {
      const deadLetter = { projectId: ref.projectId, name: settings.deadLetter.queue_name };
      if (quotas) await this.quotas.checkNewQueue(deadLetter, quotas);
      await this.ensure(deadLetter);
    }
    return settings;
  }

  /** Version 1 update queue (creates the queue when missing; may change its push type). */
  async updateV1(ref: QueueRef, update: V1QueueUpdate, quotas?: QueueQuotas): Promise<void> {
    if (quotas) await this.quotas.checkNewQueue(ref, quotas);
    await this.refusePushLoop(
      ref,
      (update.subscriberUrls ?? []).map((url) => ({ url })),
    );
    await this.save(ref, (current) => withoutSelfPush(ref, { ...applyV1QueueUpdate(current, update), api: 1 }));
  }

  /**
   * Adds or updates (by name), replaces, or removes subscribers of a push queue; `subscribers`
   * may be derived from the current ones (read in the same save).
   */
  async changeSubscribers(
    ref: QueueRef,
    change: SubscriberChange,
    subscribers: Subscriber[] | ((current: Subscriber[]) => Subscriber[]),
  ): Promise<void> {
    if (change !== 'remove')
      await this.refusePushLoop(ref, typeof subscribers === 'function' ? subscribers([]) : subscribers);
    await this.save(ref, (current) => {
      if (!current) throw fail('mq_queue_not_found');
      if (!current.push) throw fail('mq_subscribers_need_push_queue');
      const given = typeof subscribers === 'function' ? subscribers(current.push.subscribers) : subscribers;
      const next = nextSubscribers(current.push.subscribers, change, given);
      if (next.length === 0) throw fail('mq_push_queue_needs_subscriber');
      return withoutSelfPush(ref, { ...current, push: { ...current.push, subscribers: next } });
    });
  }

  private async refusePushLoop(ref: QueueRef, subscribers: ReadonlyArray<{ url: string }>): Promise<void> {
    await refusePushLoop(
      ref.name,
      subscribers.map((subscriber) => subscriber.url),
      async (name) => {
        const info = await this.info({ projectId: ref.projectId, name });
        return (info?.push?.subscribers ?? []).map((subscriber) => subscriber.url);
      },
    );
  }

  /** Sets a pull queue's alerts to `change(current alerts)`; an empty list removes them. */
  async changeAlerts(ref: QueueRef, change: (current: Alert[] | undefined) => Alert[]): Promise<void> {
    await this.save(ref, (current) => {
      if (!current) throw fail('mq_queue_not_found');
      if (isPushQueue(current)) throw fail('mq_alerts_on_push_queue');
      const alerts = change(current.alerts);
      return { ...current, alerts: alerts.length > 0 ? alerts : undefined };
    });
  }

  async exists(ref: QueueRef): Promise<boolean> {
    return (await this.redis.exists(this.keys.queue(ref)[QUEUE_KEY]!)) === 1;
  }

  /** How many queues the project has. */
  async count(projectId: string): Promise<number> {
    return this.redis.zcard(this.keys.queueIndex(projectId));
  }

  /** Creates a queue with default settings unless it exists. */
  async ensure(ref: QueueRef): Promise<void> {
    const written = await scripts.saveQueue.run<number>(this.redis, this.keys.queue(ref), ['']);
    if (written !== -1) await this.indexCreated(ref);
  }

  /** Adds a newly created queue to its project's index. */
  async indexCreated(ref: QueueRef): Promise<void> {
    await this.redis.zadd(this.keys.queueIndex(ref.projectId), 0, ref.name);
  }

  /** Every push queue, as JSON [project id, queue name]. */
  async pushQueues(): Promise<string[]> {
    // SSCAN, not SMEMBERS: tenants make push queues, so the set may be big; each step is bounded.
    const members = new Set<string>();
    let cursor = '0';
    do {
      const [next, batch] = await this.redis.sscan(this.keys.pushQueueIndex(), cursor, 'COUNT', 500);
      cursor = next;
      for (const member of batch) members.add(member);
    } while (cursor !== '0');
    return [...members];
  }

  /** Keeps the set of push queues (which the push deliverer serves) in step; announces new settings of push queues. */
  private async indexPushQueue(ref: QueueRef, isPush: boolean): Promise<void> {
    const member = JSON.stringify([ref.projectId, ref.name]);
    const index = this.keys.pushQueueIndex();
    const changed = isPush ? await this.redis.sadd(index, member) : await this.redis.srem(index, member);
    if (changed === 1 || isPush) await this.redis.publish(this.keys.pushQueuesChannel(), member);
  }

  /** Deletes a queue and its messages; false when it did not exist. */
  async delete(ref: QueueRef): Promise<boolean> {
    this.quotas.forget(ref);
    const queueKeys = this.keys.queue(ref);
    const index = this.keys.queueIndex(ref.projectId);
    const [[, existed]] = (await this.redis
      .multi()
      .exists(queueKeys[QUEUE_KEY]!)
      .unlink(...queueKeys)
      .exec()) as [[null, number], unknown];
    await this.redis.zrem(index, ref.name);
    await this.indexPushQueue(ref, false);
    // A post may have re-created the queue between the two steps: keep it listed then.
    if ((await this.redis.exists(queueKeys[QUEUE_KEY]!)) === 1) await this.redis.zadd(index, 0, ref.name);
    return existed === 1;
  }

  /** Removes every message of a queue, keeping the queue; false when it does not exist. */
  async clear(ref: QueueRef): Promise<boolean> {
    const [queueKey, ...messageKeys] = this.keys.queue(ref);
    const [[, existed]] = (await this.redis
      .multi()
      .exists(queueKey!)
      .unlink(...messageKeys)
      .hdel(queueKey!, 'bytes')
      .exec()) as [[null, number], unknown];
    return existed === 1;
  }

  /** Queue names in byte order after `previous`, starting with `prefix`. */
  async list(projectId: string, options: ListOptions): Promise<string[]> {
    const index = this.keys.queueIndex(projectId);
    const prefix = Buffer.from(options.prefix ?? '');
    const previous = options.previous === undefined ? null : Buffer.from(options.previous);
    let min =
      previous !== null && Buffer.compare(previous, prefix) >= 0
        ? Buffer.concat([Buffer.from('('), previous])
        : Buffer.concat([Buffer.from('['), prefix]);
    const max = prefix.length > 0 ? Buffer.concat([Buffer.from('['), prefix, Buffer.from([0xff])]) : Buffer.from('+');
    const names: string[] = [];
    while (names.length < options.perPage) {
      const batch = await this.redis.zrangebylex(index, min, max, 'LIMIT', 0, options.perPage - names.length);
      if (batch.length === 0) break;
      names.push(...(await this.withoutGhosts(projectId, batch)));
      min = Buffer.concat([Buffer.from('('), Buffer.from(batch[batch.length - 1]!)]);
    }
    return names;
  }

  /** A page of queue names in byte order: `count` names from position `offset` (version 1 lists). */
  async listPage(projectId: string, offset: number, count: number): Promise<string[]> {
    const names = await this.redis.zrange(this.keys.queueIndex(projectId), offset, offset + count - 1);
    return names.length === 0 ? [] : this.withoutGhosts(projectId, names);
  }

  /**
   * Leaves out index entries of queues that no longer exist (a post racing a delete can leave
   * one behind; removing it here could race a re-creation, so it is only skipped).
   */
  private async withoutGhosts(projectId: string, names: string[]): Promise<string[]> {
    const exists = await Promise.all(
      names.map((name) => this.redis.exists(this.keys.queue({ projectId, name })[QUEUE_KEY]!)),
    );
    return names.filter((_, i) => exists[i] === 1);
  }
}

/** `settings`, once checked that none of its subscribers pushes back to the queue itself. */
function withoutSelfPush<T extends QueueSettings>(ref: QueueRef, settings: T): T {
  checkNoSelfPush(ref.name, settings.push?.subscribers ?? []);
  return settings;
}

function nextSubscribers(current: Subscriber[], change: SubscriberChange, given: Subscriber[]): Subscriber[] {
  if (change === 'replace') return given;
  const givenNames = new Set(given.map((subscriber) => subscriber.name));
  if (change === 'remove') return current.filter((subscriber) => !givenNames.has(subscriber.name));
  return [...current.filter((subscriber) => !givenNames.has(subscriber.name)), ...given];
}
