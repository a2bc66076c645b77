import type { RedisClient } from '../../core/redis.js';
import { fail } from '../../core/errors.js';
import { claimInIndex, type IndexClaim } from '../../core/bounded-index.js';
import type { ProjectStorage } from '../../auth/stored-bytes.js';
import { LIMITS } from '../limits.js';
import { checkNoSelfPush } from '../push/internal-url.js';
import { refusePushLoop } from '../push/push-loops.js';
import { QUEUE_KEY, type MqKeys, type QueueRef, scripts } from '../scripts.js';
import type { Alert, QueueInfo, QueueSettings, Subscriber } from '../types.js';
import { QueueQuotaGate, type QueueQuotas } from './queue-quotas.js';
import {
  applyQueueChanges,
  isPushQueue,
  hasPushWork,
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

  /** Settings and message counts of a queue, or null when it does not exist. */
  async info(ref: QueueRef): Promise<QueueInfo | null> {
    const reply = await scripts.queueInfo.run<(string | number)[]>(this.redis, this.keys.queue(ref));
    if (reply.length === 0) return null;
    const [ready, delayed, reserved, expired] = reply.slice(0, 4).map(Number) as [number, number, number, number];
    const pairs = reply.slice(4);
    if (expired > 0) this.onExpired(expired);
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < pairs.length; i += 2) fields[String(pairs[i])] = String(pairs[i + 1]);
    return {
      ...settingsFromFields(fields),
      projectId: ref.projectId,
      name: ref.name,
      size: ready + delayed + reserved,
      ready,
      delayed,
      reserved,
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
   * retrying when another writer got there first. Returns the settings written. `script` is
   * save-queue.lua, or for a change that only removes, its allow-oom twin (a full Redis runs it).
   */
  async save(
    ref: QueueRef,
    change: (current: QueueSettings | null) => QueueSettings,
    script = scripts.saveQueue,
  ): Promise<{ settings: QueueSettings; created: boolean }> {
    const queueKeys = this.keys.queue(ref);
    for (let attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
      const fields = await this.redis.hgetall(queueKeys[QUEUE_KEY]!);
      const version = fields.version ?? '';
      const settings = change(version === '' ? null : settingsFromFields(fields));
      const written = await script.run<number>(this.redis, queueKeys, [version, ...settingsToFields(settings)]);
      if (written === -1) continue;
      if (version === '') await this.indexCreated(ref);
      await this.indexPushQueue(ref, hasPushWork(settings));
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
    const gate = mode === 'upsert' ? quotas : undefined;
    const { settings } = await this.counted(ref, gate, async () => {
      await this.refusePushLoop(ref, changes.push?.subscribers ?? []);
      return this.save(ref, (current) => {
        if (!current && mode === 'update') throw fail('mq_queue_not_found');
        return withinPushRules(ref, { ...applyQueueChanges(ref.name, current, changes), api: 3 });
      });
    });
    if (settings.deadLetter) {
      const deadLetter = { projectId: ref.projectId, name: settings.deadLetter.queue_name };
      await this.counted(deadLetter, quotas, () => this.ensure(deadLetter));
    }
    return settings;
  }

  /** Version 1 update queue (creates the queue when missing; may change its push type). */
  async updateV1(ref: QueueRef, update: V1QueueUpdate, quotas?: QueueQuotas): Promise<void> {
    await this.counted(ref, quotas, async () => {
      await this.refusePushLoop(
        ref,
        (update.subscriberUrls ?? []).map((url) => ({ url })),
      );
      await this.save(ref, (current) => withinPushRules(ref, { ...applyV1QueueUpdate(current, update), api: 1 }));
    });
  }

  /** Runs `create`, which may create queue `ref`, within the project's `queues` quota when given. */
  counted<T>(ref: QueueRef, quotas: QueueQuotas | undefined, create: () => Promise<T>): Promise<T> {
    return quotas ? this.quotas.withNewQueue(ref, quotas, create) : create();
  }

  /**
   * Adds or updates (by name), replaces, or removes subscribers of a push queue; `subscribers`
   * may be derived from the current ones (read in the same save). Version 3 keeps at least one
   * subscriber; version 1 (`mayEmpty`) may remove the last one (nothing is pushed until one is added).
   */
  async changeSubscribers(
    ref: QueueRef,
    change: SubscriberChange,
    subscribers: Subscriber[] | ((current: Subscriber[]) => Subscriber[]),
    mayEmpty = false,
  ): Promise<void> {
    if (change !== 'remove')
      await this.refusePushLoop(ref, typeof subscribers === 'function' ? subscribers([]) : subscribers);
    const script = change === 'remove' ? scripts.removeSubscribers : scripts.saveQueue;
    await this.save(
      ref,
      (current) => {
        if (!current) throw fail('mq_queue_not_found');
        if (!current.push) throw fail('mq_subscribers_need_push_queue');
        const given = typeof subscribers === 'function' ? subscribers(current.push.subscribers) : subscribers;
        const next = nextSubscribers(current.push.subscribers, change, given);
        if (next.length === 0 && !mayEmpty) throw fail('mq_push_queue_needs_subscriber');
        return withinPushRules(ref, { ...current, push: { ...current.push, subscribers: next } });
      },
      script,
    );
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

  /** Adds a queue's name to its project's index unless the index holds `maxNames` names (QueueQuotaGate). */
  claimName(ref: QueueRef, maxNames: number): Promise<IndexClaim> {
    return claimInIndex(this.redis, this.keys.queueIndex(ref.projectId), ref.name, maxNames);
  }

  /** Takes a claimed name out of the index again, unless its queue was created meanwhile. */
  async releaseName(ref: QueueRef): Promise<void> {
    const index = this.keys.queueIndex(ref.projectId);
    await this.redis.zrem(index, ref.name);
    if (await this.exists(ref)) await this.redis.zadd(index, 0, ref.name);
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

  /**
   * Keeps the set of push queues the deliverer serves (those with a subscriber) in step;
   * announces new settings of push queues. A version 1 push queue without subscribers stays
   * out of the set, so no deliverer (this release's or an earlier one, which cannot take a
   * push queue without subscribers) reserves its messages until a subscriber is added.
   */
  private async indexPushQueue(ref: QueueRef, isPush: boolean): Promise<void> {
    const member = JSON.stringify([ref.projectId, ref.name]);
    const index = this.keys.pushQueueIndex();
    // Looked up first: SADD is refused on a full Redis even for a member already there.
    const changed = isPush === ((await this.redis.sismember(index, member)) === 0);
    if (changed) await (isPush ? this.redis.sadd(index, member) : this.redis.srem(index, member));
    if (changed || isPush) await this.redis.publish(this.keys.pushQueuesChannel(), member);
  }

  /** Deletes a queue and its messages; false when it did not exist. */
  async delete(ref: QueueRef): Promise<boolean> {
    this.quotas.forget(ref);
    const queueKeys = this.keys.queue(ref);
    const index = this.keys.queueIndex(ref.projectId);
    const existed = await scripts.deleteQueue.run<number>(this.redis, queueKeys);
    await this.redis.zrem(index, ref.name);
    await this.indexPushQueue(ref, false);
    // A post may have re-created the queue between the two steps: keep it listed then.
    if ((await this.redis.exists(queueKeys[QUEUE_KEY]!)) === 1) await this.redis.zadd(index, 0, ref.name);
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

/**
 * `settings`, once checked against the push rules only the final settings show: at most
 * LIMITS.maxSubscribers subscribers, none pushing back to the queue itself, and an error queue
 * other than the queue (checked in the save, so no race passes them).
 */
function withinPushRules<T extends QueueSettings>(ref: QueueRef, settings: T): T {
  const subscribers = settings.push?.subscribers ?? [];
  if (subscribers.length > LIMITS.maxSubscribers)
    throw fail('mq_too_many_subscribers', LIMITS.maxSubscribers, subscribers.length);
  checkNoSelfPush(ref.name, subscribers);
  if (settings.push?.error_queue === ref.name) throw fail('mq_error_queue_is_itself', ref.name);
  return settings;
}

function nextSubscribers(current: Subscriber[], change: SubscriberChange, given: Subscriber[]): Subscriber[] {
  if (change === 'replace') return given;
  const givenNames = new Set(given.map((subscriber) => subscriber.name));
  if (change === 'remove') return current.filter((subscriber) => !givenNames.has(subscriber.name));
  return [...current.filter((subscriber) => !givenNames.has(subscriber.name)), ...given];
}
