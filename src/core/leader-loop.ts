import { FailureLog, type StateLogger } from './failure-log.js';
import { Lease } from './lease.js';
import type { KeySpace, RedisClient } from './redis.js';

/** Told after each try for the lease whether this process holds it (for the ferrum_leader gauge). */
export interface LeadershipReport {
  report(loop: string, held: boolean): void;
}

export type LoopLogger = StateLogger;

export interface LeaderLoopOptions {
  redis: RedisClient;
  keys: KeySpace;
  /** Names the lease (`lease:<name>`) and the loop in logs. */
  name: string;
  intervalMs: number;
  log: LoopLogger;
  /** One pass of the work; `isStopping()` turns true when stop() is called, to end long passes early. */
  work: (isStopping: () => boolean) => Promise<void>;
  leadership?: LeadershipReport;
}

/**
 * Background work that exactly one controller runs at a time: every interval, take or renew the
 * lease, then run one pass; passes never overlap. While passes throw (Redis down), the next one
 * waits longer each time (up to 30 s) and only the first failure and the recovery are logged.
 * The lease outlives three intervals, so a dead leader is replaced within that. The lease is
 * first tried at start, so whether this process leads is known (and reported) at once, not one
 * interval later (a minute for the task sweeper); the first pass still waits one interval.
 */
export class LeaderLoop {
  private started = false;
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;
  private stopping = false;
  private readonly lease: Lease;
  private readonly health: FailureLog;

  constructor(private readonly options: LeaderLoopOptions) {
    this.lease = new Lease(
      options.redis,
      options.keys.of('lease', options.name),
      Math.max(3 * options.intervalMs, 5000),
    );
    this.health = new FailureLog(options.log, options.name, options.intervalMs);
  }

  /** Starts the loop; an interval of 0 leaves it off. */
  start(): void {
    if (this.options.intervalMs <= 0 || this.started || this.stopping) return;
    this.started = true;
    this.pass = this.claim()
      .then(
        () => undefined,
        (error: unknown) => void this.health.failed(error),
      )
      .finally(() => {
        this.pass = null;
        this.schedule();
      });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.pass;
    await this.lease.release().catch(() => undefined);
    this.options.leadership?.report(this.options.name, false);
  }

  /** Runs one pass now if this process holds (or can take) the lease; returns whether it ran. */
  async runOnce(): Promise<boolean> {
    if (!(await this.claim())) return false;
    await this.options.work(() => this.stopping);
    return true;
  }

  /** Takes or renews the lease and reports whether this process holds it. */
  private async claim(): Promise<boolean> {
    const held = await this.lease.tryAcquire();
    this.options.leadership?.report(this.options.name, held);
    return held;
  }

  private schedule(): void {
    if (this.stopping) return;
    this.timer = setTimeout(
      () => {
        this.pass = this.runOnce()
          .then(() => this.health.succeeded())
          .catch((error: unknown) => void this.health.failed(error))
          .finally(() => {
            this.pass = null;
            this.schedule();
          });
      },
      Math.max(this.options.intervalMs, this.health.delayMs()),
    );
    this.timer.unref();
  }
}
