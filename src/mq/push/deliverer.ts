import type { Redis } from 'ioredis';
import type { EventBus } from '../../core/bus.js';
import type { LeadershipReport } from '../../core/leader-loop.js';
import { Lease } from '../../core/lease.js';
import type { OutboundGuard } from '../../core/outbound-guard.js';
import type { KeySpace } from '../../core/redis.js';
import type { MqLogger } from '../dead-letters.js';
import type { QueueRef } from '../keys.js';
import type { MessageQueue } from '../service.js';
import type { QueueInfo } from '../types.js';
import { deliveryHeaders } from './delivery-headers.js';
import { PushHttpClient } from './http-delivery.js';
import type { Send } from './message-round.js';
import { QueueWorker } from './queue-worker.js';
import { Slots } from './slots.js';

export interface PushDeliveryConfig {
  /** Most HTTP deliveries in flight at once (all queues). */
  concurrency: number;
  /** Most messages of one queue in delivery at once. */
  queueConcurrency: number;
  /** Per-request timeout, in ms. */
  timeoutMs: number;
  /** How long a leader holds its lease without renewing, in ms. */
  leaseMs: number;
}

export interface PushDelivererDeps {
  redis: Redis;
  keys: KeySpace;
  bus: EventBus;
  mq: MessageQueue;
  log: MqLogger;
  config: PushDeliveryConfig;
  /** Base URL of this service for the Service-Subscriber-Message-Url header. */
  publicUrl: string;
  /** Which addresses subscribers may be at. */
  guard: OutboundGuard;
  leadership?: LeadershipReport;
}

// The set of push queues is re-read this often too, in case a change announcement was missed.
const REFRESH_MS = 10_000;

interface Served {
  worker: QueueWorker;
  unsubscribe: Promise<() => Promise<void>>;
}

/**
 * Delivers every push queue. Leader-elected: only the controller holding the lease delivers;
 * messages are reserved while in delivery, so a new leader resumes where a dead one stopped
 * once their reservations lapse. Woken by each queue's pub/sub wake channel when messages
 * are posted.
 */
export class PushDeliverer {
  private readonly lease: Lease;
  private readonly http: PushHttpClient;
  private readonly slots: Slots;
  private readonly served = new Map<string, Served>();
  private leaseTimer: NodeJS.Timeout | null = null;
  private refreshTimer: NodeJS.Timeout | null = null;
  private stopAnnouncements: Promise<() => Promise<void>> | null = null;
  private refreshing: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly deps: PushDelivererDeps) {
    this.lease = new Lease(deps.redis, deps.keys.of('lease', 'mq-push'), deps.config.leaseMs);
    this.http = new PushHttpClient(deps.config.timeoutMs, deps.config.concurrency, deps.guard);
    this.slots = new Slots(deps.config.concurrency);
  }

  start(): void {
    void this.checkLease();
    this.leaseTimer = setInterval(
      () => void this.checkLease(),
      Math.max(Math.floor(this.deps.config.leaseMs / 3), 100),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    for (const entry of this.served.values()) entry.worker.halt();
    // Deliveries in flight fail at once (counted as failed tries) rather than hold up shutdown.
    await this.http.close();
    await this.resign();
    await this.lease.release().catch(() => undefined);
  }

  /** Deliveries in flight now (all queues). */
  get deliveriesInFlight(): number {
    return this.slots.inUse;
  }

  private async checkLease(): Promise<void> {
    try {
      const leader = !this.stopped && (await this.lease.tryAcquire());
      this.deps.leadership?.report('mq-push', leader);
      if (leader && !this.refreshTimer) await this.lead();
      else if (!leader && this.refreshTimer) await this.resign();
    } catch (error) {
      this.deps.log.warn({ err: error }, 'push delivery: lease check failed');
    }
  }

  private async lead(): Promise<void> {
    this.refreshTimer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.stopAnnouncements = this.deps.bus.subscribe(this.deps.mq.keys.pushQueuesChannel(), (member) => {
      this.served.get(member)?.worker.forgetSettings();
      void this.refresh();
    });
    await this.stopAnnouncements;
    await this.refresh();
  }

  private async resign(): Promise<void> {
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.refreshTimer = null;
    await this.refreshing;
    const unsubscribe = this.stopAnnouncements;
    this.stopAnnouncements = null;
    await (
      await unsubscribe
    )?.();
    const served = [...this.served.values()];
    this.served.clear();
    await Promise.all(served.map((entry) => this.stopServing(entry)));
  }

  /** Serves the push queues listed now and stops serving the others. */
  private refresh(): Promise<void> {
    this.refreshing ??= this.syncQueues()
      .catch((error: unknown) => this.deps.log.warn({ err: error }, 'push delivery: reading the push queues failed'))
      .finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async syncQueues(): Promise<void> {
    const members = new Set(await this.deps.mq.queues.pushQueues());
    if (!this.refreshTimer) return;
    for (const [member, entry] of this.served) {
      if (members.has(member)) continue;
      this.served.delete(member);
      await this.stopServing(entry);
    }
    for (const member of members) {
      if (this.served.has(member)) continue;
      const [projectId, name] = JSON.parse(member) as [string, string];
      const entry = this.serve({ projectId, name });
      this.served.set(member, entry);
      await entry.unsubscribe;
      entry.worker.kick();
    }
  }

  private serve(ref: QueueRef): Served {
    const { mq, log, config } = this.deps;
    const worker = new QueueWorker(ref, {
      queues: mq.queues,
      messages: mq.messages,
      push: mq.push,
      send: (queue, reservationId) => this.sender(queue, reservationId),
      log,
      maxInFlight: config.queueConcurrency,
      requestTimeoutMs: config.timeoutMs,
      metrics: mq.metrics,
    });
    return { worker, unsubscribe: this.deps.bus.subscribe(mq.keys.wakeChannel(ref), () => worker.kick()) };
  }

  private async stopServing(entry: Served): Promise<void> {
    await (
      await entry.unsubscribe
    )();
    await entry.worker.stop();
  }

  private sender(queue: QueueInfo, reservationId: string): Send {
    const messagesUrl = `${this.deps.publicUrl}/3/projects/${queue.projectId}/queues/${encodeURIComponent(queue.name)}/messages/`;
    return (subscriber, message) => {
      const headers = deliveryHeaders(subscriber, message, { reservationId, messageUrl: messagesUrl + message.id });
      return this.slots.run(() => this.http.post(subscriber.url, message.body, headers));
    };
  }
}
