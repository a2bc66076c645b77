/** What a background activity logs with (pino and fastify loggers fit). */
export interface StateLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * The health of something retried over and over (a loop pass, a connection): logs one line when
 * it starts failing and one when it recovers, never one per attempt, and says how long to wait
 * before the next attempt (exponential backoff from `baseMs` up to `maxMs`).
 */
export class FailureLog {
  private failures = 0;
  private failingSince = 0;

  constructor(
    private readonly log: StateLogger,
    private readonly what: string,
    private readonly baseMs = 500,
    private readonly maxMs = 30_000,
  ) {}

  get failing(): boolean {
    return this.failures > 0;
  }

  /** Records a failed attempt; returns how long to wait before the next one. */
  failed(error: unknown): number {
    if (this.failures === 0) {
      this.failingSince = Date.now();
      this.log.warn({ activity: this.what, err: error }, `${this.what} failing; backing off`);
    }
    this.failures++;
    return this.delayMs();
  }

  /** Records a successful attempt; logs the recovery if it had been failing. */
  succeeded(): void {
    if (this.failures === 0) return;
    this.log.info(
      { activity: this.what, failures: this.failures, down_ms: Date.now() - this.failingSince },
      `${this.what} recovered`,
    );
    this.failures = 0;
  }

  /** The wait before the next attempt: 0 while healthy, then base, 2×base, … up to max. */
  delayMs(): number {
    return backoffMs(this.failures, this.baseMs, this.maxMs);
  }
}

/** The wait after `failures` failed attempts in a row: 0, then base, 2×base, … up to max. */
function backoffMs(failures: number, baseMs: number, maxMs: number): number {
  if (failures === 0) return 0;
  return Math.min(maxMs, baseMs * 2 ** Math.min(failures - 1, 20));
}

/** One member's side of a failure record: what a retried activity reports its attempts to. */
export interface FailureTracker {
  readonly failing: boolean;
  /** Records a failed attempt; returns how long to wait before the next one. */
  failed(error: unknown): number;
  /** Records a successful attempt. */
  succeeded(): void;
  /** The wait before the next attempt: 0 while healthy, then exponential up to the max. */
  delayMs(): number;
}

/** A member of a FailureGroup; released when its activity ends, it no longer counts. */
export interface FailureGroupMember extends FailureTracker {
  release(): void;
}

/**
 * The health of many like activities that fail together (one per push queue, say, when Redis
 * is down): each member backs off on its own (exponentially, from `baseMs` up to `maxMs`), but
 * the group logs one line when its first member starts failing and one when its last failing
 * member recovers (or is released), never one per member or per attempt.
 */
export class FailureGroup {
  private readonly failingMembers = new Set<object>();
  private readonly episodeMembers = new Set<object>();
  private failures = 0;
  private failingSince = 0;

  constructor(
    private readonly log: StateLogger,
    private readonly what: string,
    private readonly baseMs = 500,
    private readonly maxMs = 30_000,
  ) {}

  /** True while at least one member is failing. */
  get failing(): boolean {
    return this.failingMembers.size > 0;
  }

  /** The tracker of one member; `label` names it in the line that says the group started failing. */
  member(label: string): FailureGroupMember {
    const id = {};
    let failures = 0;
    let released = false;
    const delayMs = () => backoffMs(failures, this.baseMs, this.maxMs);
    const recover = () => {
      if (failures === 0) return;
      failures = 0;
      if (!released) this.memberRecovered(id);
    };
    return {
      get failing() {
        return failures > 0;
      },
      failed: (error: unknown) => {
        if (!released) {
          if (failures === 0) this.memberFailed(id, label, error);
          this.failures++;
        }
        failures++;
        return delayMs();
      },
      succeeded: recover,
      delayMs,
      release: () => {
        recover();
        released = true;
      },
    };
  }

  private memberFailed(id: object, label: string, error: unknown): void {
    if (this.failingMembers.size === 0) {
      this.failingSince = Date.now();
      this.failures = 0;
      this.episodeMembers.clear();
      this.log.warn({ activity: this.what, member: label, err: error }, `${this.what} failing; backing off`);
    }
    this.failingMembers.add(id);
    this.episodeMembers.add(id);
  }

  private memberRecovered(id: object): void {
    if (!this.failingMembers.delete(id) || this.failingMembers.size > 0) return;
    this.log.info(
      {
        activity: this.what,
        failures: this.failures,
        members_failed: this.episodeMembers.size,
        down_ms: Date.now() - this.failingSince,
      },
      `${this.what} recovered`,
    );
    this.episodeMembers.clear();
  }
}
