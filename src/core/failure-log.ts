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
    if (this.failures === 0) return 0;
    return Math.min(this.maxMs, this.baseMs * 2 ** Math.min(this.failures - 1, 20));
  }
}
