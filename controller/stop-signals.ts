import type { Logger } from 'pino';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface StopSteps {
  /** The graceful stop: drain, then close everything (the managed Redis last). */
  stop(): Promise<void>;
  /** What a second signal does instead: skip the rest, but shut the managed Redis down with its data saved. */
  stopNow(): Promise<void>;
}

export interface StopSignalOptions {
  log: Logger;
  /** The process is gone within this long of the first signal, whatever state it is in. */
  timeoutMs: number;
  drainMs: number;
  /** The final line ("Ferrum stopped after 0.4 s"). */
  print: (line: string) => void;
  exit: (code: number) => void;
}

/**
 * SIGINT and SIGTERM: the first starts the graceful stop, a second one stops at once (the drain
 * and the requests in flight are not waited for). Either way one last line says it stopped.
 */
export class StopSignals {
  private signalledAt: number | null = null;
  private hurried = false;
  private finished = false;

  constructor(
    private readonly steps: StopSteps,
    private readonly options: StopSignalOptions,
  ) {}

  /** SIGHUP too: a closed terminal would otherwise end Ferrum and leave its redis-server running. */
  install(): void {
    for (const name of STOP_SIGNALS) process.on(name, () => this.signal(name));
  }

  /** A signal, or a fatal error (exitCode 1): stop. */
  signal(signal: string, exitCode = 0): void {
    const { log, timeoutMs, drainMs } = this.options;
    if (this.signalledAt !== null) return this.hurry(signal, exitCode);
    this.signalledAt = Date.now();
    log.info(
      { signal, timeout_ms: timeoutMs, drain_ms: drainMs, hint: 'signal again to stop at once' },
      'shutting down',
    );
    // Whatever state Redis and the tasks are in, the process is gone within the bound.
    setTimeout(() => {
      log.error({ timeout_ms: timeoutMs }, 'shutdown took too long; exiting now');
      this.finish(1);
    }, timeoutMs).unref();
    this.steps.stop().then(
      () => this.finish(exitCode),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        this.finish(1);
      },
    );
  }

  private hurry(signal: string, exitCode: number): void {
    if (this.hurried) return;
    this.hurried = true;
    const { log } = this.options;
    log.warn({ signal }, 'stopping at once: the drain and requests in flight are not waited for');
    // Redis now stops under connections and loops that are still open: their reports of a lost
    // connection say nothing the person who asked for this does not know. Errors still show.
    // (A logger's children follow its level.)
    log.level = 'error';
    this.steps.stopNow().then(
      () => this.finish(exitCode),
      (error: unknown) => {
        log.error({ err: error }, 'stopping at once failed');
        this.finish(1);
      },
    );
  }

  private finish(code: number): void {
    if (this.finished) return;
    this.finished = true;
    const seconds = (Date.now() - (this.signalledAt ?? Date.now())) / 1000;
    const how = code === 0 ? '' : ` (exit code ${code})`;
    this.options.print(`Ferrum stopped after ${seconds.toFixed(1)} s${how}`);
    this.options.exit(code);
  }
}
