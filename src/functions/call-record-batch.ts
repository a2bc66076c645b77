import type { CallQueue } from './call-queue.js';
import type { CallStore } from './call-store.js';
import type { CallOutcome, CallRecord } from './types.js';

/** A call that ended, as its record and log are to be written. */
export interface EndedCall {
  appName: string;
  callId: string;
  outcome: CallOutcome;
  error?: string;
  /** Its log; a promise when the last of it may still be on its way. */
  log: string | Promise<string>;
  startedAt: number;
  completedAt: number;
  /** The record to create first, for a call that was never queued (run where it was received). */
  create?: CallRecord;
  /** The call message to drop from a runner's in-flight list once the record is written. */
  inFlight?: { cluster: string; runnerId: string; message: string };
}

/**
 * Writes the records and logs of ended calls off the answer's path: every `flushMs`, all that
 * ended since go out together (one auto-pipelined write). A call's message leaves its runner's
 * in-flight list in the same write, so a runner that dies before the write has its calls
 * re-run rather than unrecorded: a crash loses at most the records of the calls in flight.
 */
export class CallRecordBatch {
  private ready: EndedCall[] = [];
  /** Calls whose log is not complete yet. */
  private readonly waiting = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly calls: CallStore,
    private readonly queue: CallQueue,
    private readonly flushMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  add(call: EndedCall): void {
    if (typeof call.log === 'string') return this.enqueue(call);
    const settled = call.log.then(
      (log) => this.enqueue({ ...call, log }),
      () => this.enqueue({ ...call, log: '' }),
    );
    this.waiting.add(settled);
    void settled.finally(() => this.waiting.delete(settled));
  }

  /** Writes everything ended so far, logs still arriving included. */
  async flush(): Promise<void> {
    await Promise.all([...this.waiting]);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.write();
    await this.writing;
  }

  private enqueue(call: EndedCall): void {
    this.ready.push(call);
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.write();
    }, this.flushMs);
  }

  private write(): void {
    const batch = this.ready;
    this.ready = [];
    if (batch.length === 0) return;
    // Issued in one tick: the connection's auto-pipelining sends them as one write.
    const writes = batch.map((call) => this.writeOne(call));
    this.writing = Promise.all([this.writing, ...writes]).then(() => {});
  }

  private async writeOne(call: EndedCall): Promise<void> {
    try {
      const { appName, callId, outcome, error, startedAt, completedAt, inFlight } = call;
      const creating = call.create ? this.calls.create(call.create) : null;
      const finishing = this.calls.finish(appName, callId, outcome, error, call.log as string, {
        startedAt,
        completedAt,
      });
      const dropping = inFlight ? this.queue.done(inFlight.cluster, inFlight.runnerId, inFlight.message) : null;
      await Promise.all([creating, finishing, dropping]);
    } catch (error) {
      this.onError(error);
    }
  }
}
