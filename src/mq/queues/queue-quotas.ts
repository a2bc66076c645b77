import { STORED_BYTES_COUNTED, byteQuotaReached, countQuotaReached, type Quotas } from '../../auth/quotas.js';
import type { ProjectStorage } from '../../auth/stored-bytes.js';
import type { IndexClaim } from '../../core/bounded-index.js';
import { RefreshAheadCache } from '../../core/refresh-ahead-cache.js';
import type { QueueRef } from '../scripts.js';

/**
 * A project's queue quotas (see src/auth/quotas.ts): most queues, most bytes of bodies per
 * queue, and the project's stored bytes over every service.
 */
export interface QueueQuotas {
  queues: number;
  queueBytes: number;
  storedBytes: number;
}

/** The queue quotas among a project's quotas. */
export function queueQuotasFrom(quotas: Quotas): QueueQuotas {
  return { queues: quotas.queues, queueBytes: quotas.queue_bytes, storedBytes: quotas.stored_bytes };
}

/** Queues a controller remembers as existing, so that posts to them skip the quota's look-up. */
const KNOWN_QUEUES = 10_000;

/**
 * How long a project's room for message bodies (stored_bytes less what its other services
 * store), once read, is used at most: a post to a known queue then goes to Redis in one step. A
 * project posting steadily has it read again in the background before then (RefreshAheadCache).
 */
const ALLOWANCE_FRESH_MS = 1000;

/** The allowances' cache key: the project and its quota, which a quota change changes. */
const allowanceKey = (projectId: string, quota: number) => `${projectId}\n${quota}`;

function queueCacheKey(ref: QueueRef): string {
  return `${ref.projectId}\n${ref.name}`;
}

/** What the gate asks of the queue records. */
export interface QueueCounts {
  exists(ref: QueueRef): Promise<boolean>;
  /** Adds the queue's name to its project's index (the count) unless it holds `maxNames` names. */
  claimName(ref: QueueRef, maxNames: number): Promise<IndexClaim>;
  /** Takes a name claimed for a queue that was not created out of the index again. */
  releaseName(ref: QueueRef): Promise<void>;
}

export class QueueQuotaGate {
  private readonly knownQueues = new Set<string>();
  private readonly allowances: RefreshAheadCache<number>;

  constructor(
    private readonly queues: QueueCounts,
    private readonly storage: ProjectStorage,
  ) {
    this.allowances = new RefreshAheadCache(ALLOWANCE_FRESH_MS, (key) => {
      const [projectId, quota] = key.split('\n');
      return this.storage.allowance('messages', projectId!, Number(quota));
    });
  }

  /**
   * Runs `create` (which may create the queue `ref`) once `ref` has its place under the
   * `queues` quota: a new queue's name is added to its project's index in the same step that
   * counts it (403 when the index is full), so racing creations cannot pass the quota. When
   * `create` fails, a name it added is taken out again. Queues this controller saw are not
   * looked up again (a post is one round trip); a deleted one is forgotten.
   */
  async withNewQueue<T>(ref: QueueRef, quotas: QueueQuotas, create: () => Promise<T>): Promise<T> {
    if (this.knownQueues.has(queueCacheKey(ref))) return create();
    const claim = await this.queues.claimName(ref, quotas.queues);
    // A queue an earlier release created and has not indexed yet is no new queue.
    if (claim === 'full' && !(await this.queues.exists(ref)))
      throw countQuotaReached('queues', quotas.queues, 'queues');
    try {
      return await create();
    } catch (error) {
      if (claim === 'added') await this.queues.releaseName(ref);
      throw error;
    }
  }

  /**
   * 413 when `bytes` more of bodies would take the project past its stored_bytes. The sum of
   * its queues' bytes and what its other services store may be a moment old
   * (ProjectMessageBytes, ALLOWANCE_FRESH_MS): only a refusal reads them again. Posts to several
   * queues at once may pass the quota by those posts; each queue's own queue_bytes, checked in
   * the post's script, is the bound that holds exactly.
   */
  async checkStoredBytes(ref: QueueRef, bytes: number, quotas: QueueQuotas): Promise<void> {
    const { projectId } = ref;
    const [allowance, recent] = await Promise.all([
      this.allowance(projectId, quotas.storedBytes),
      this.storage.messages.total(projectId),
    ]);
    if (recent + bytes <= allowance) return;
    const [freshAllowance, fresh] = await Promise.all([
      this.allowance(projectId, quotas.storedBytes, true),
      this.storage.messages.total(projectId, true),
    ]);
    if (fresh + bytes > freshAllowance)
      throw byteQuotaReached('stored_bytes', quotas.storedBytes, STORED_BYTES_COUNTED);
  }

  /** The project's room for message bodies under `quota`; `fresh` reads it again whatever was read lately. */
  private async allowance(projectId: string, quota: number, fresh = false): Promise<number> {
    const key = allowanceKey(projectId, quota);
    if (!fresh) return (await this.allowances.get(key)) ?? this.storage.allowance('messages', projectId, quota);
    const readFrom = Date.now();
    const allowance = await this.storage.allowance('messages', projectId, quota);
    this.allowances.set(key, allowance, readFrom);
    return allowance;
  }

  /** `ref` exists now (a post went through). */
  remember(ref: QueueRef): void {
    if (this.knownQueues.size >= KNOWN_QUEUES) this.knownQueues.clear();
    this.knownQueues.add(queueCacheKey(ref));
  }

  /** `ref` is being deleted. */
  forget(ref: QueueRef): void {
    this.knownQueues.delete(queueCacheKey(ref));
  }
}
