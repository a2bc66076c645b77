import type { FailureGroupMember } from '../../core/failure-log.js';
import type { MqLogger } from '../types.js';
import type { QueueRef } from '../scripts.js';
import type { MqMetrics } from '../metrics.js';
import type { QueueStore } from '../queues/queue-store.js';
import type { QueueInfo, ReservedMessage, ReserveResult } from '../types.js';
import { bodySizeOf } from '../messages/body-bytes.js';
import { runRound, type Send } from './message-round.js';
import type { FinishedRound, PushStore, StatusMap } from './push-store.js';

export interface QueueWorkerDeps {
  queues: QueueStore;
  /** One reserve without waiting, counted (MessageQueue.reserveNow). */
  messages: { reserve(ref: QueueRef, reservation: { n: number; timeout: number }): Promise<ReserveResult> };
  push: PushStore;
  send: (queue: QueueInfo, reservationId: string) => Send;
  /**
   * Resolves once the project's budget has room (ProjectBudget.ready): asked before each reserve,
   * so a project past its byte rate waits holding nothing, not with messages reserved.
   */
  budgetReady?: (projectId: string) => Promise<void>;
  log: MqLogger;
  /** Most messages of one queue in delivery at once, so one slow queue cannot take every slot. */
  maxInFlight: number;
  requestTimeoutMs: number;
  /** Where reserves and delivery outcomes are counted; none when absent. */
  metrics?: MqMetrics | null;
  /**
   * This queue's failure record (its back-off), a member of the deliverer's group, which logs
   * one line when delivery starts failing and one when it recovers, for all queues together.
   * Released when the worker halts.
   */
  health: FailureGroupMember;
}

const RESERVE_BATCH = 100;
/**
 * About the most bytes of bodies one reserve takes (judged by the last reserve's bodies): its
 * reply is read in one piece, so 64 bodies of 50 KB are taken in several reserves, with other
 * tenants' requests read between them.
 */
const RESERVE_BYTES = 256 * 1024;
// Most rounds written by one script call.
const FINISH_BATCH = 100;

interface PendingFinish {
  queue: QueueInfo;
  round: FinishedRound;
  resolve: () => void;
  reject: (error: unknown) => void;
}
// Room for waiting on a delivery slot, on top of the requests themselves.
const HOLD_MARGIN_SECONDS = 30;
// A wake-up set for a due time fires this much later, past the clocks' difference.
const DUE_SLACK_MS = 5;
// Settings are re-read at least this often (changes are also announced, see forgetSettings).
const SETTINGS_MAX_AGE_MS = 1000;

/**
 * Delivers one push queue: reserves messages (holding them while they are delivered), runs a
 * round for each, and sleeps until a post wakes it or the next retry falls due.
 */
export class QueueWorker {
  private inFlight = 0;
  private pumping = false;
  private kickedWhilePumping = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private timerDue = Infinity;
  private rounds = 0;
  private readonly active = new Set<Promise<void>>();
  private readonly finishing: PendingFinish[] = [];
  private settings: { queue: QueueInfo | null; readAt: number } | null = null;
  /** push.rate pacing: message starts are spaced from here on (at most one second of burst). */
  private paceFrom = 0;
  /** The average body length of the last reserve's messages. */
  private bodyLength = 0;

  constructor(
    readonly ref: QueueRef,
    private readonly deps: QueueWorkerDeps,
  ) {}

  private get health(): FailureGroupMember {
    return this.deps.health;
  }

  /** Looks for deliverable messages now (after a post, a finished round, or a due time). */
  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.kickedWhilePumping = true;
      return;
    }
    this.pumping = true;
    void this.pump().finally(() => {
      this.pumping = false;
      if (this.kickedWhilePumping) {
        this.kickedWhilePumping = false;
        this.kick();
      }
    });
  }

  /** The queue's settings changed: read them again before the next reserve. */
  forgetSettings(): void {
    this.settings = null;
  }

  /** Stops taking messages (rounds in progress go on). */
  halt(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.health.release();
  }

  /** Stops taking messages and waits for the rounds in progress. */
  async stop(): Promise<void> {
    this.halt();
    await Promise.all([...this.active]);
  }

  private async pump(): Promise<void> {
    try {
      while (!this.stopped && this.inFlight < this.deps.maxInFlight) {
        const queue = await this.currentSettings();
        // A version 1 push queue may have no subscribers: its messages wait for the first one.
        if (!queue?.push || queue.push.subscribers.length === 0) return;
        const n = this.allowedByRate(queue, Math.min(this.batchSize(), this.deps.maxInFlight - this.inFlight));
        if (n === 0) return;
        await this.deps.budgetReady?.(this.ref.projectId);
        if (this.stopped) return;
        const reserved = await this.deps.messages.reserve(this.ref, { n, timeout: this.holdSeconds(queue) });
        this.health.succeeded();
        if (queue.push.rate) this.paceFrom += (reserved.messages.length * 1000) / queue.push.rate;
        if (reserved.messages.length === 0) {
          if (reserved.nextDueMs >= 0) this.wakeAt(reserved.nextDueMs);
          return;
        }
        this.bodyLength = reserved.messages.reduce((sum, m) => sum + bodySizeOf(m), 0) / reserved.messages.length;
        for (const message of reserved.messages) this.track(this.deliver(queue, message));
      }
    } catch (error) {
      this.wakeAt(Date.now() + this.health.failed(error));
    }
  }

  /** Queues a finished round; rounds finished in the same turn of the event loop are written together. */
  private finishRound(queue: QueueInfo, round: FinishedRound): Promise<void> {
    return new Promise((resolve, reject) => {
      this.finishing.push({ queue, round, resolve, reject });
      if (this.finishing.length === 1) setImmediate(() => void this.writeFinished());
    });
  }

  private async writeFinished(): Promise<void> {
    const batch = this.finishing.splice(0);
    // Rounds read under different settings snapshots are written separately.
    const byQueue = new Map<QueueInfo, PendingFinish[]>();
    for (const entry of batch) byQueue.set(entry.queue, [...(byQueue.get(entry.queue) ?? []), entry]);
    for (const [queue, entries] of byQueue) {
      for (let first = 0; first < entries.length; first += FINISH_BATCH) {
        const chunk = entries.slice(first, first + FINISH_BATCH);
        try {
          await this.deps.push.finishRounds(
            queue,
            chunk.map((entry) => entry.round),
          );
          for (const entry of chunk) entry.resolve();
        } catch (error) {
          for (const entry of chunk) entry.reject(error);
        }
      }
    }
  }

  private async currentSettings(): Promise<QueueInfo | null> {
    const now = Date.now();
    if (!this.settings || now - this.settings.readAt > SETTINGS_MAX_AGE_MS) {
      this.settings = { queue: await this.deps.queues.info(this.ref), readAt: now };
    }
    return this.settings.queue;
  }

  private track(round: Promise<void>): void {
    this.inFlight += 1;
    this.active.add(round);
    void round.finally(() => {
      this.inFlight -= 1;
      this.active.delete(round);
      // Refill in batches: once half the slots are free, or when the queue ran dry.
      if (this.inFlight <= this.deps.maxInFlight / 2) this.kick();
    });
  }

  private async deliver(queue: QueueInfo, message: ReservedMessage): Promise<void> {
    try {
      // A message reserved for the first time has no status yet: skip the read.
      const stored: StatusMap =
        message.reservedCount > 1 ? await this.deps.push.storedStatuses(this.ref, message.id) : new Map();
      const updates = await runRound({
        type: queue.type,
        message,
        stored,
        context: {
          push: queue.push!,
          now: Date.now(),
          reservationId: message.reservationId,
          acknowledgeWithinMs: queue.messageTimeout * 1000,
        },
        firstSubscriber: this.rounds++,
        send: this.deps.send(queue, message.reservationId),
      });
      for (const status of updates.values()) this.deps.metrics?.countPushStatus(status.status);
      await this.finishRound(queue, { message, reservationId: message.reservationId, updates });
    } catch (error) {
      // The message stays reserved; it comes back when its reservation lapses. Logged (once for
      // all queues) by the failure group, not once per message: in an outage every round fails.
      this.health.failed(error);
    }
  }

  /** Messages one reserve takes: RESERVE_BATCH, fewer when the last bodies were large. */
  private batchSize(): number {
    if (this.bodyLength === 0) return RESERVE_BATCH;
    return Math.max(1, Math.min(RESERVE_BATCH, Math.floor(RESERVE_BYTES / this.bodyLength)));
  }

  /** How many of `n` messages may start now under the queue's push.rate (messages per second). */
  private allowedByRate(queue: QueueInfo, n: number): number {
    const rate = queue.push?.rate;
    if (!rate) return n;
    const interval = 1000 / rate;
    const now = Date.now();
    this.paceFrom = Math.max(this.paceFrom, now - 1000);
    const allowed = Math.floor((now - this.paceFrom) / interval);
    if (allowed <= 0) this.wakeAt(this.paceFrom + interval);
    return Math.max(0, Math.min(n, allowed));
  }

  /** Seconds a message is held for one round: every unicast subscriber may time out in turn. */
  private holdSeconds(queue: QueueInfo): number {
    const requests = queue.type === 'unicast' ? queue.push!.subscribers.length : 1;
    const needed = Math.ceil((requests * this.deps.requestTimeoutMs) / 1000) + HOLD_MARGIN_SECONDS;
    return Math.max(queue.messageTimeout, needed);
  }

  private wakeAt(dueMs: number): void {
    if (this.stopped || dueMs >= this.timerDue) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = dueMs;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.timerDue = Infinity;
        this.kick();
      },
      Math.max(dueMs - Date.now(), 0) + DUE_SLACK_MS,
    );
  }
}
