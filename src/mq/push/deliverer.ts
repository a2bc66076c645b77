import type { EventBus } from '../../core/bus.js';
import { FailureGroup, FailureLog } from '../../core/failure-log.js';
import type { LeadershipReport } from '../../core/leader-loop.js';
import { Lease } from '../../core/lease.js';
import type { OutboundGuard } from '../../core/outbound-guard.js';
import type { KeySpace, RedisClient } from '../../core/redis.js';
import type { MqLogger } from '../types.js';
import type { QueueRef } from '../scripts.js';
import type { MessageQueue } from '../message-queue.js';
import type { Message, QueueInfo } from '../types.js';
import { bodySizeOf } from '../messages/body-bytes.js';
import { deliveryHeaders } from './delivery-headers.js';
import { PushHttpClient, type DeliveryOutcome } from './http-delivery.js';
import { InternalDelivery, refusedDelivery, type QueueTask } from './internal-delivery.js';
import { internalTargetOf } from './internal-url.js';
import type { Send } from './message-round.js';
import { QueueWorker } from './queue-worker.js';
import { Slots } from './slots.js';
import type { ProjectBudget } from '../../core/project-budget.js';

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
  redis: RedisClient;
  keys: KeySpace;
  bus: EventBus;
  mq: MessageQueue;
  log: MqLogger;
  config: PushDeliveryConfig;
  /** Base URL of this service for the Service-Subscriber-Message-Url header. */
  publicUrl: string;
  /** Which addresses subscribers may be at. */
  guard: OutboundGuard;
  /** How an `ironworker:///<code>` subscriber queues its task. */
  queueTask: QueueTask;
  /** Each project's byte rate and turns of the event loop, which every delivery spends (ctx.budget). */
  budget: ProjectBudget;
  leadership?: LeadershipReport;
}

// The set of push queues is re-read, and each served queue looked at, this often too, in case
// an announcement or a wake-up was missed.
const REFRESH_MS = 10_000;
// After a queue's Redis error, it tries again this much later (doubling while errors go on).
const QUEUE_ERROR_PAUSE_MS = 1000;
const MAX_QUEUE_ERROR_PAUSE_MS = 30_000;

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
  private readonly internal: InternalDelivery;
  private readonly slots: Slots;
  private readonly served = new Map<string, Served>();
  private leaseTimer: NodeJS.Timeout | null = null;
  private refreshTimer: NodeJS.Timeout | null = null;
  private stopAnnouncements: Promise<() => Promise<void>> | null = null;
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;
  private stopped = false;
  private readonly leaseHealth: FailureLog;
  private readonly listHealth: FailureLog;
  /** Every served queue's failures: one line when delivery starts failing, one when it recovers. */
  private readonly queueHealth: FailureGroup;

  constructor(private readonly deps: PushDelivererDeps) {
    this.lease = new Lease(deps.redis, deps.keys.of('lease', 'mq-push'), deps.config.leaseMs);
    this.leaseHealth = new FailureLog(deps.log, 'push delivery lease', this.leasePeriodMs);
    this.listHealth = new FailureLog(deps.log, 'push delivery queue list');
    this.queueHealth = new FailureGroup(deps.log, 'push delivery', QUEUE_ERROR_PAUSE_MS, MAX_QUEUE_ERROR_PAUSE_MS);
    this.http = new PushHttpClient(deps.config.timeoutMs, deps.config.concurrency, deps.guard);
    this.internal = new InternalDelivery(deps.mq.producer, deps.queueTask, deps.budget);
    this.slots = new Slots(deps.config.concurrency);
  }

  start(): void {
    this.scheduleLeaseCheck(0);
  }

  private get leasePeriodMs(): number {
    return Math.max(Math.floor(this.deps.config.leaseMs / 3), 100);
  }

  /** Lease checks every leaseMs/3, further apart while they fail. */
  private scheduleLeaseCheck(delayMs: number): void {
    this.leaseTimer = setTimeout(() => {
      void this.checkLease().finally(() => {
        if (!this.stopped) this.scheduleLeaseCheck(Math.max(this.leasePeriodMs, this.leaseHealth.delayMs()));
      });
    }, delayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.leaseTimer) clearTimeout(this.leaseTimer);
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
      this.leaseHealth.succeeded();
    } catch (error) {
      this.leaseHealth.failed(error);
    }
  }

  private async lead(): Promise<void> {
    this.refreshTimer = setInterval(() => void this.refresh().then(() => this.kickServed()), REFRESH_MS);
    this.stopAnnouncements = this.deps.bus.subscribe(this.deps.mq.keys.pushQueuesChannel(), (member) => {
      this.served.get(member)?.worker.forgetSettings();
      void this.refresh();
    });
    try {
      await this.stopAnnouncements;
    } catch (error) {
      // Not listening to announcements: step down, so that the next lease check leads afresh.
      await this.resign();
      throw error;
    }
    await this.refresh();
  }

  /**
   * Pub/sub is at most once (a wake-up published while the subscriber connection reconnects is
   * gone), so every queue served is also looked at periodically.
   */
  private kickServed(): void {
    for (const entry of this.served.values()) entry.worker.kick();
  }

  private async resign(): Promise<void> {
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.refreshTimer = null;
    await this.refreshing;
    const unsubscribe = this.stopAnnouncements;
    this.stopAnnouncements = null;
    await (
      await unsubscribe?.catch(() => null)
    )?.();
    const served = [...this.served.values()];
    this.served.clear();
    await Promise.all(served.map((entry) => this.stopServing(entry)));
  }

  /**
   * Serves the push queues listed now and stops serving the others. Asked again while a pass
   * runs, it runs one more pass after it: the running pass may have read the list before the
   * change it is asked for (an announced queue would otherwise wait for the periodic re-read).
   */
  private refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        await this.syncQueues()
          .then(() => this.listHealth.succeeded())
          .catch((error: unknown) => void this.listHealth.failed(error));
      } while (this.refreshAgain && this.refreshTimer);
    })().finally(() => (this.refreshing = null));
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
      try {
        await entry.unsubscribe;
      } catch (error) {
        // Deaf to its wake-ups: served again (subscribing anew) by the next pass.
        this.served.delete(member);
        await entry.worker.stop();
        throw error;
      }
      entry.worker.kick();
    }
  }

  private serve(ref: QueueRef): Served {
    const { mq, log, config } = this.deps;
    const worker = new QueueWorker(ref, {
      queues: mq.queues,
      // The bodies as bytes: passed on to subscribers as they are, never decoded nor encoded again.
      messages: { reserve: (queue, reservation) => mq.reserveNow(queue, { ...reservation, bodies: 'bytes' }) },
      push: mq.push,
      send: (queue, reservationId) => this.sender(queue, reservationId),
      budgetReady: (projectId) => this.deps.budget.ready(projectId),
      log,
      maxInFlight: config.queueConcurrency,
      requestTimeoutMs: config.timeoutMs,
      metrics: mq.metrics,
      health: this.queueHealth.member(`${ref.projectId}/${ref.name}`),
    });
    return { worker, unsubscribe: this.deps.bus.subscribe(mq.keys.wakeChannel(ref), () => worker.kick()) };
  }

  private async stopServing(entry: Served): Promise<void> {
    await (
      await entry.unsubscribe.catch(() => null)
    )?.();
    await entry.worker.stop();
  }

  private sender(queue: QueueInfo, reservationId: string): Send {
    // The message's URL in the API that configured the queue: v1 clients acknowledge through /1.
    const version = queue.api === 1 ? 1 : 3;
    const messagesUrl = `${this.deps.publicUrl}/${version}/projects/${queue.projectId}/queues/${encodeURIComponent(queue.name)}/messages/`;
    return (subscriber, message) => {
      const target = internalTargetOf(subscriber.url);
      if (target) {
        return this.hop(queue.projectId, message, (hops) =>
          this.internal.deliver(queue.projectId, target, message, hops),
        );
      }
      const headers = deliveryHeaders(subscriber, message, { reservationId, messageUrl: messagesUrl + message.id });
      return this.hop(queue.projectId, message, async () => {
        await this.deps.budget.spendInBackground(queue.projectId, bodySizeOf(message));
        return this.http.post(subscriber.url, message.bytes ?? message.body, headers);
      });
    };
  }

  /**
   * Every delivery, to any kind of subscriber, is one hop of the message, in one of the
   * project's fair share of slots, paid from the project's budget: its body's bytes on the
   * project's byte rate (which its large request bodies spend too), started in a turn of the
   * event loop of its own; an in-process delivery is one of the project's few writes in flight
   * (ProjectBudget.write, where the copy or task is written). A message whose hop budget is
   * spent goes nowhere.
   */
  private async hop(projectId: string, message: Message, deliver: (hopsLeft: number) => Promise<DeliveryOutcome>) {
    let hops: number;
    try {
      hops = this.deps.mq.producer.spendHop(message.hopsLeft, 'push');
    } catch (error) {
      return refusedDelivery(error);
    }
    return this.slots.run(projectId, () => deliver(hops));
  }
}
