import { boundedChunks } from '../../core/chunks.js';
import type { CallQueue } from './call-queue.js';
import type { CallStore } from './call-store.js';
import type { CallOutcome, CallRecord } from '../types.js';

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
  /** The record of a call that was never queued (run where it was received): it is written whole, at its end. */
  create?: CallRecord;
  /** The call message to drop from a runner's in-flight list once the record is written. */
  inFlight?: { cluster: string; runnerId: string; message: string };
}

const GROUP_CALLS = 100;
const GROUP_LOG_CHARS = 1024 * 1024;

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

  /** Takes an ended call to write; the batch owns the object from then on (its log is set in it). */
  add(call: EndedCall): void {
    if (typeof call.log === 'string') return this.enqueue(call);
    // One promise per call: it leaves `waiting` as it settles (no finally() for that). The
    // call is the batch's own (add's caller made it for it): its log is set in place.
    const settled: Promise<void> = call.log.then(
      (log) => {
        call.log = log;
        this.settled(settled, call);
      },
      () => {
        call.log = '';
        this.settled(settled, call);
      },
    );
    this.waiting.add(settled);
  }

  /** Writes everything ended so far, logs still arriving included. */
  async flush(): Promise<void> {
    await Promise.all([...this.waiting]);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.write();
    await this.writing;
  }

  private settled(waited: Promise<void>, call: EndedCall): void {
    this.waiting.delete(waited);
    this.enqueue(call);
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
    const writes: Promise<void>[] = [];
    const neverRecorded = new Map<string, EndedCall[]>();
    for (const call of batch) {
      if (!call.create) writes.push(this.writeOne(call));
      else if (neverRecorded.has(call.appName)) neverRecorded.get(call.appName)!.push(call);
      else neverRecorded.set(call.appName, [call]);
    }
    for (const [appName, calls] of neverRecorded)
      // Bounded, so that no one script runs long.
      for (const group of boundedChunks(calls, GROUP_CALLS, GROUP_LOG_CHARS, (call) => (call.log as string).length))
        writes.push(this.writeWhole(appName, group));
    this.writing = Promise.all([this.writing, ...writes]).then(() => {});
  }

  /** Ends a call recorded when it was queued, and takes it off its runner's in-flight list. */
  private async writeOne(call: EndedCall): Promise<void> {
    try {
      const { appName, callId, outcome, error, startedAt, completedAt, inFlight } = call;
      const finishing = this.calls.finish(appName, callId, outcome, error, call.log as string, {
        startedAt,
        completedAt,
      });
      const dropping = inFlight ? this.queue.done(inFlight.cluster, inFlight.runnerId, inFlight.message) : null;
      await Promise.all([finishing, dropping]);
    } catch (error) {
      this.onError(error);
    }
  }

  /** Writes calls of one app never recorded before, whole, in one script. */
  private async writeWhole(appName: string, calls: EndedCall[]): Promise<void> {
    try {
      await this.calls.recordEnded(
        appName,
        calls.map((call) => ({
          record: {
            ...call.create!,
            status: call.outcome,
            startedAt: call.startedAt,
            completedAt: call.completedAt,
            error: call.error ?? null,
          },
          log: call.log as string,
        })),
      );
    } catch (error) {
      this.onError(error);
    }
  }
}
