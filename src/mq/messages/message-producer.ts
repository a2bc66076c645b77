import { fail } from '../../core/errors.js';
import type { ProjectBudget } from '../../core/project-budget.js';
import { TtlCache } from '../../core/ttl-cache.js';
import { LIMITS } from '../limits.js';
import type { HopSpender, MqMetrics } from '../metrics.js';
import type { QueueQuotas } from '../queues/queue-quotas.js';
import type { QueueRef } from '../scripts.js';
import type { MqLogger, NewMessage } from '../types.js';
import { hopHeaders } from './hop-budget.js';

/** MessageQueue.post: the one write path of messages, quotas checked when given. */
export type PostMessages = (
  ref: QueueRef,
  messages: NewMessage[],
  quotas: QueueQuotas | undefined,
  quietAlerts: boolean,
) => Promise<string[]>;

export interface MessageProducerDeps {
  /** A project's queue quotas; none apply when absent (domain tests). */
  quotasOf?: (projectId: string) => Promise<QueueQuotas>;
  metrics: MqMetrics | null;
  log: MqLogger;
  /** Where every write is paced and bounded per project (ProjectBudget.write); unbounded when absent (domain tests). */
  budget?: Pick<ProjectBudget, 'write' | 'writeCaused'>;
}

// How long a project's quotas, once read, are used before they are read again.
const QUOTAS_FRESH_MS = 1000;

/**
 * Posts the messages Ferrum itself produces: an `ironmq:///` delivery's copy, an alert's
 * message, a push error report. Each spends one hop of the budget of the message that caused
 * it (hop-budget.ts) and goes through the same post as a client's, under the project's quotas,
 * as one of the project's in-process writes (ProjectBudget.write: its bytes paced, a few at once).
 */
export class MessageProducer {
  private readonly quotaCache = new TtlCache<Promise<QueueQuotas>>(QUOTAS_FRESH_MS);

  constructor(
    private readonly post: PostMessages,
    private readonly deps: MessageProducerDeps,
  ) {}

  /**
   * Spends one hop of the budget of a message passed on (`by` what): the hops what is produced
   * from it keeps, or 508, counted, when it had none left.
   */
  spendHop(hopsLeft: number | undefined, by: HopSpender): number {
    const hops = hopsLeft ?? LIMITS.hopBudget;
    if (hops >= 1) return hops - 1;
    this.deps.metrics?.hopBudgetExhausted.inc({ by });
    throw fail('mq_hop_budget_exhausted', LIMITS.hopBudget);
  }

  /** Posts `body`, produced from a message with `hopsLeft`; an alert's message fires no alerts. */
  async produce(ref: QueueRef, body: string, hopsLeft: number | undefined, by: HopSpender): Promise<void> {
    await this.postWithHops(ref, body, this.spendHop(hopsLeft, by), by);
  }

  /** Posts `body` carrying `hops`, the hop that produced it already spent (a push delivery's, by the deliverer). */
  async postWithHops(ref: QueueRef, body: string | Buffer, hops: number, by: HopSpender): Promise<void> {
    const quotas = await this.quotasOf(ref.projectId);
    const post = () => this.post(ref, [{ body, pushHeaders: hopHeaders(hops) }], quotas, by === 'alert');
    const budget = this.deps.budget;
    if (!budget) await post();
    // An alert is caused by a post or reserve, which may hold the project's last write slot.
    else if (by === 'alert') await budget.writeCaused(ref.projectId, body.length, post);
    else await budget.write(ref.projectId, body.length, post);
  }

  /** `produce`, a refusal logged (alerts, error reports: the operation that caused them stands). */
  async produceQuietly(ref: QueueRef, body: string, hopsLeft: number | undefined, by: HopSpender): Promise<void> {
    try {
      await this.produce(ref, body, hopsLeft, by);
    } catch (error) {
      this.deps.log.warn({ err: error, queue: ref.name, by }, 'a message Ferrum produces was not posted');
    }
  }

  /**
   * The project's quotas, read at most once a second: the read itself is shared, so the many
   * deliveries of a fan-out that miss the cache together wait on one read, not one each.
   */
  private quotasOf(projectId: string): Promise<QueueQuotas | undefined> {
    const read = this.deps.quotasOf;
    if (!read) return Promise.resolve(undefined);
    let quotas = this.quotaCache.get(projectId);
    if (!quotas) {
      quotas = read(projectId);
      this.quotaCache.set(projectId, quotas);
      quotas.catch(() => this.quotaCache.delete(projectId));
    }
    return quotas;
  }
}
