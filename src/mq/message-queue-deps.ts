import type { Registry } from 'prom-client';
import type { EventBus } from '../core/bus.js';
import type { FeatureFlags } from '../core/features/storage-features.js';
import type { ProjectBudget } from '../core/project-budget.js';
import type { KeySpace, RedisClient } from '../core/redis.js';
import type { QueueQuotas } from './queues/queue-quotas.js';
import type { MqLogger } from './types.js';

/** What MessageQueue is built from (controller/app-context.ts), and how it inserts messages. */
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
  /** The shortest reservation timeout a client may ask for (FERRUM_MQ_MIN_TIMEOUT). */
  minTimeoutSeconds: number;
  /** A project's queue quotas, which the messages Ferrum produces pass too; none when absent. */
  projectQuotas?: (projectId: string) => Promise<QueueQuotas>;
  /** The storage feature flags (plain_messages decides the message layout written); all when absent. */
  features?: FeatureFlags;
  /** Each project's budget, which every message Ferrum produces is written under; unbounded when absent. */
  budget?: ProjectBudget;
}

export interface InsertOptions {
  ids: 'fresh ids' | 'ids may repeat';
  /** The queue's queue_bytes quota; none when absent. */
  maxQueueBytes?: number;
  /** An alert's messages: they move the size alerts compare with, but fire none. */
  quietAlerts: boolean;
  /** The fewest hops the messages may still travel: what alerts they fire are produced from. */
  hops: number;
}
