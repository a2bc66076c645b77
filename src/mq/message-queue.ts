import type { Registry } from 'prom-client';
import type { EventBus } from '../core/bus.js';
import { STORED_BYTES_COUNTED, byteQuotaReached, countQuotaReached } from '../auth/quotas.js';
import { badRequest, notFound } from '../core/errors.js';
import type { KeySpace, RedisClient } from '../core/redis.js';
import { scriptClock } from '../core/lua.js';
import { ProjectStorage } from '../core/stored-bytes.js';
import { handOverDeadLetters } from './messages/dead-letters.js';
import { ExpirySweeper } from './messages/expiry-sweeper.js';
import { MqKeys, type QueueRef } from './scripts.js';
import { WakeHub } from './messages/wake-hub.js';
import { MessageStore, type DeleteTarget, type ReserveOptions } from './messages/message-store.js';
import { mqMetrics, type MqMetrics } from './metrics.js';
import { PushStore } from './push/push-store.js';
import { checkNoSelfPush } from './push/internal-url.js';
import { refusePushLoop } from './push/push-loops.js';
import { applyQueueChanges, isPushQueue, type QueueChanges } from './queues/queue-settings.js';
import { QueueStore } from './queues/queue-store.js';
import type {
  Alert,
  MqLogger,
  NewMessage,
  QueueSettings,
  ReservedMessage,
  ReserveResult,
  Subscriber,
} from './types.js';
import { applyV1QueueUpdate, type V1QueueUpdate } from './queues/v1-queue-update.js';

export interface MessageQueueDeps {
  redis: RedisClient;
  keys: KeySpace;
  bus: EventBus;
  log: MqLogger;
  /** How often the leader sweeps idle queues for expired messages; 0 turns the sweeper off. */
  sweepIntervalMs?: number;
  /** Where the counters go (/metrics); none when absent. */
  registry?: Registry;
  /** How long a push message's delivery status stays readable once its delivery is over, in ms. */
  pushStatusRetentionMs?: number;
  /** Most messages one post request may carry (FERRUM_MQ_MAX_POST_MESSAGES). */
  maxPostMessages?: number;
}

const DEFAULT_MAX_POST_MESSAGES = 1000;

/**
 * A project's queue quotas (see src/auth/quotas.ts): most queues, most bytes of bodies per
 * queue, and the project's stored bytes over every service.
 */
export interface QueueQuotas {
  queues: number;
  queueBytes: number;
  storedBytes: number;
}

/** Queues a controller remembers as existing, so that posts to them skip the quota's look-up. */
const KNOWN_QUEUES = 10_000;

function queueCacheKey(ref: QueueRef): string {
  return `${ref.projectId}\n${ref.name}`;
}

const DEFAULT_PUSH_STATUS_RETENTION_MS = 3_600_000;

export type SubscriberChange = 'add' | 'replace' | 'remove';

// A reserve retried right at the due time can miss it by the clocks' difference; wait a little past.
const DUE_SLACK_MS = 5;

/** The message queue service: queue records, message operations, long-poll and dead letters. */
export class MessageQueue {
  readonly keys: MqKeys;
  readonly queues: QueueStore;
  readonly messages: MessageStore;
  readonly hub: WakeHub;
  readonly push: PushStore;
  readonly sweeper: ExpirySweeper;
  readonly metrics: MqMetrics | null;
  private readonly knownQueues = new Set<string>();
  private readonly storage: ProjectStorage;

  constructor(private readonly deps: MessageQueueDeps) {
    this.keys = new MqKeys(deps.keys);
    this.storage = new ProjectStorage(deps.redis, deps.keys);
    this.hub = new WakeHub(deps.bus);
    this.metrics = deps.registry ? mqMetrics(deps.registry, this.hub) : null;
    this.queues = new QueueStore(deps.redis, this.keys, (expired) => this.metrics?.expired.inc(expired));
    this.messages = new MessageStore(deps.redis, this.keys, this.queues, deps.log, this.metrics);
    this.push = new PushStore(
      deps.redis,
      this.keys,
      this.queues,
      this.messages,
      deps.pushStatusRetentionMs ?? DEFAULT_PUSH_STATUS_RETENTION_MS,
    );
    this.sweeper = new ExpirySweeper(deps.redis, deps.keys, this.keys, deps.sweepIntervalMs ?? 0, deps.log, (expired) =>
      this.metrics?.expired.inc(expired),
    );
  }

  /**
   * Posts messages (creating the queue when missing); returns their ids in order. A tenant's
   * post passes its project's quotas: a new queue past `queues` is 403, bodies past the
   * queue's `queueBytes` 413, and nothing is stored then.
   */
  async post(ref: QueueRef, messages: NewMessage[], quotas?: QueueQuotas): Promise<string[]> {
    const most = this.deps.maxPostMessages ?? DEFAULT_MAX_POST_MESSAGES;
    if (messages.length > most)
      throw badRequest(`messages: at most ${most} messages per request, got ${messages.length}`);
    const bytes = messages.reduce((sum, message) => sum + Buffer.byteLength(message.body), 0);
    if (quotas) await Promise.all([this.checkNewQueue(ref, quotas), this.checkStoredBytes(ref, bytes, quotas)]);
    const ids = await this.messages.post(ref, messages, quotas?.queueBytes);
    this.storage.messages.added(ref.projectId, bytes);
    if (quotas) this.remember(ref);
    return ids;
  }

  /**
   * 413 when `bytes` more of bodies would take the project past its stored_bytes. The sum of
   * its queues' bytes may be a moment old (ProjectMessageBytes): only a refusal sums them again.
   * Posts to several queues at once may pass the quota by those posts; each queue's own
   * queue_bytes, checked in the post's script, is the bound that holds exactly.
   */
  private async checkStoredBytes(ref: QueueRef, bytes: number, quotas: QueueQuotas): Promise<void> {
    const { projectId } = ref;
    const [allowance, recent] = await Promise.all([
      this.storage.allowance('messages', projectId, quotas.storedBytes),
      this.storage.messages.total(projectId),
    ]);
    if (recent + bytes <= allowance) return;
    if ((await this.storage.messages.total(projectId, true)) + bytes > allowance)
      throw byteQuotaReached('stored_bytes', quotas.storedBytes, STORED_BYTES_COUNTED);
  }

  private remember(ref: QueueRef): void {
    if (this.knownQueues.size >= KNOWN_QUEUES) this.knownQueues.clear();
    this.knownQueues.add(queueCacheKey(ref));
  }

  /** Deletes a queue and its messages; false when it did not exist. */
  async deleteQueue(ref: QueueRef): Promise<boolean> {
    this.knownQueues.delete(queueCacheKey(ref));
    return this.queues.delete(ref);
  }

  /**
   * 403 when `ref` is a new queue and its project already has `quotas.queues`. Queues this
   * controller saw are not looked up again (a post is one round trip); a deleted one is forgotten.
   */
  private async checkNewQueue(ref: QueueRef, quotas: QueueQuotas): Promise<void> {
    if (this.knownQueues.has(queueCacheKey(ref)) || (await this.queues.exists(ref))) return;
    if ((await this.queues.count(ref.projectId)) >= quotas.queues)
      throw countQuotaReached('queues', quotas.queues, 'queues');
  }

  /** Deletes all the targets or none (see MessageStore.delete). */
  async delete(ref: QueueRef, targets: DeleteTarget[]): Promise<void> {
    await this.messages.delete(ref, targets);
    this.metrics?.deleted.inc(targets.length);
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
    if (quotas && mode === 'upsert') await this.checkNewQueue(ref, quotas);
    await this.refusePushLoop(ref, changes.push?.subscribers ?? []);
    const { settings } = await this.queues.save(ref, (current) => {
      if (!current && mode === 'update') throw notFound('Queue not found');
      return withoutSelfPush(ref, { ...applyQueueChanges(ref.name, current, changes), api: 3 });
    });
    if (settings.deadLetter) {
      const deadLetter = { projectId: ref.projectId, name: settings.deadLetter.queue_name };
      if (quotas) await this.checkNewQueue(deadLetter, quotas);
      await this.queues.ensure(deadLetter);
    }
    return settings;
  }

  /** Removes every message of a queue, keeping the queue (and fires the alerts that crosses). */
  async clear(ref: QueueRef): Promise<void> {
    if (!(await this.queues.clear(ref))) throw notFound('Queue not found');
    await this.messages.checkAlerts(ref);
  }

  /** Version 1 update queue (creates the queue when missing; may change its push type). */
  async updateV1(ref: QueueRef, update: V1QueueUpdate, quotas?: QueueQuotas): Promise<void> {
    if (quotas) await this.checkNewQueue(ref, quotas);
    await this.refusePushLoop(
      ref,
      (update.subscriberUrls ?? []).map((url) => ({ url })),
    );
    await this.queues.save(ref, (current) => withoutSelfPush(ref, { ...applyV1QueueUpdate(current, update), api: 1 }));
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
    await this.queues.save(ref, (current) => {
      if (!current) throw notFound('Queue not found');
      if (!current.push) throw badRequest('Subscribers can only be changed on a push queue');
      const given = typeof subscribers === 'function' ? subscribers(current.push.subscribers) : subscribers;
      const next = nextSubscribers(current.push.subscribers, change, given);
      if (next.length === 0) throw badRequest('A push queue must keep at least one subscriber');
      return withoutSelfPush(ref, { ...current, push: { ...current.push, subscribers: next } });
    });
  }

  private async refusePushLoop(ref: QueueRef, subscribers: ReadonlyArray<{ url: string }>): Promise<void> {
    await refusePushLoop(
      ref.name,
      subscribers.map((subscriber) => subscriber.url),
      async (name) => {
        const info = await this.queues.info({ projectId: ref.projectId, name });
        return (info?.push?.subscribers ?? []).map((subscriber) => subscriber.url);
      },
    );
  }

  /** Sets a pull queue's alerts to `change(current alerts)`; an empty list removes them. */
  async changeAlerts(ref: QueueRef, change: (current: Alert[] | undefined) => Alert[]): Promise<void> {
    await this.queues.save(ref, (current) => {
      if (!current) throw notFound('Queue not found');
      if (isPushQueue(current)) throw badRequest('alerts cannot be set on a push queue');
      const alerts = change(current.alerts);
      return { ...current, alerts: alerts.length > 0 ? alerts : undefined };
    });
  }

  /**
   * Reserves messages; with `waitSeconds` > 0 an empty queue is waited on until a message
   * arrives (woken through pub/sub, or at the moment a delayed or reserved message falls due),
   * the wait ends, or `signal` aborts (client gone, shutdown).
   */
  async reserve(
    ref: QueueRef,
    options: ReserveOptions & { waitSeconds: number },
    signal?: AbortSignal,
  ): Promise<ReservedMessage[]> {
    const first = await this.reserveOnce(ref, options);
    if (first.messages.length > 0 || options.waitSeconds <= 0) return first.messages;
    const deadline = Date.now() + options.waitSeconds * 1000;
    const waiter = await this.hub.listen(this.keys.wakeChannel(ref));
    const stop = () => waiter.close();
    signal?.addEventListener('abort', stop);
    try {
      // Subscribed now: this reserve sees everything posted before, the waiter everything after.
      let result = await this.reserveOnce(ref, options);
      while (result.messages.length === 0) {
        const remaining = deadline - Date.now();
        if (remaining <= 0 || waiter.closed) break;
        const untilDue =
          result.nextDueMs >= 0 ? Math.max(result.nextDueMs - scriptClock.now(), 0) + DUE_SLACK_MS : Infinity;
        await waiter.next(Math.min(remaining, untilDue));
        if (waiter.closed) break;
        result = await this.reserveOnce(ref, options);
      }
      return result.messages;
    } finally {
      signal?.removeEventListener('abort', stop);
      waiter.close();
    }
  }

  /** One reserve without waiting (dead letters handed over, counted). */
  async reserveOnce(ref: QueueRef, options: ReserveOptions): Promise<ReserveResult> {
    const result = await this.messages.reserve(ref, options);
    this.metrics?.countReserve(result);
    if (result.movedToDeadLetter > 0) {
      await handOverDeadLetters(this.messages, ref, this.deps.log);
    }
    return result;
  }

  /** Ends every long-poll wait (before the HTTP server closes). */
  close(): void {
    this.hub.closeAll();
  }

  /** Starts the background sweeper (leader-elected among controllers). */
  startBackgroundWork(): void {
    this.sweeper.start();
  }

  async stopBackgroundWork(): Promise<void> {
    await this.sweeper.stop();
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
