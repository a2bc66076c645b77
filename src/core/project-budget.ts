import { EventLoopTurns } from './event-loop-turns.js';
import { ForegroundPressure } from './foreground-pressure.js';
import { KeyedPacer, KeyedSlots } from './keyed-pacing.js';

/** Most bytes of background work started in one turn of the event loop: one large message's worth. */
export const SLICE_BYTES = 64 * 1024;
/**
 * What one piece of background work (a delivery, a copy, a task) costs beside its bytes, in bytes:
 * its scripts, its answer and its records cost about what moving 8 KiB does. A slice then starts
 * at most 8 small pieces.
 */
export const PIECE_BYTES = 8 * 1024;
/**
 * While other tenants' requests keep the event loop busy, a slice of background work at most every
 * 5 ms: a slice is about a millisecond of work, so background work keeps about a fifth of the loop.
 */
export const YIELD_MS = 5;
/** The event loop's utilization from which it counts as busy (ForegroundPressure). */
export const BUSY_SHARE = 0.5;
/**
 * Most in-process writes of one project in Redis at once: what another tenant's command queues
 * behind in Redis (and on the shared connection) is then a few scripts, never a fan-out's worth.
 */
export const WRITES_IN_FLIGHT = 4;

export interface ProjectBudgetSettings {
  /** Bytes per second one project may make this process read or move (0: no bound). */
  bytesPerSecond: number;
  /** A quiet project's first bytes that pass at once. */
  burstBytes: number;
  /** Most bytes of background work started in one turn of the event loop (at least one piece). */
  sliceBytes: number;
  /** Most in-process writes of one project in flight at once (at least 1). */
  writesInFlight: number;
  /** What a piece of background work costs beside its bytes (EventLoopTurns; 0 by default). */
  pieceBytes?: number;
  /** Under other tenants' requests on a busy loop, a slice at most every this many ms (0: never waits). */
  yieldMs?: number;
}

/**
 * What one project may make this controller process, in bytes, whoever asks: its large request
 * bodies (the large-body gate) and every hop of the background work its messages cause (push
 * deliveries to HTTP, `ironmq:///` and `ironworker:///` subscribers) spend one byte rate per
 * project. A project past its rate waits; the others do not. Background work also starts in
 * slices, one turn of the event loop each, projects in turn (EventLoopTurns), so another
 * tenant's request never waits behind more than one slice of it. Every in-process write (a message
 * Ferrum produces: an `ironmq:///` copy, an alert, an error report; a task an `ironworker:///`
 * subscriber queues) goes through `write`, which also holds one of the project's few write slots
 * until Redis answered, so another tenant's command waits behind at most those few scripts.
 */
export class ProjectBudget {
  /** The byte rate, or null when unbounded. */
  readonly pacer: KeyedPacer | null;
  private readonly turns: EventLoopTurns;
  private readonly pressure: ForegroundPressure | null;
  private readonly writing: KeyedSlots;
  private readonly writesNow = new Map<string, number>();

  constructor(settings: ProjectBudgetSettings) {
    this.pacer = settings.bytesPerSecond > 0 ? new KeyedPacer(settings.bytesPerSecond, settings.burstBytes) : null;
    const { sliceBytes, pieceBytes = 0, yieldMs = 0 } = settings;
    this.pressure = yieldMs > 0 ? new ForegroundPressure(BUSY_SHARE) : null;
    this.turns = new EventLoopTurns({ sliceBytes, pieceBytes, yieldMs }, this.pressure);
    this.writing = new KeyedSlots(Math.max(1, settings.writesInFlight));
  }

  /**
   * `project` had a request authorized: while other projects' background work runs on a busy
   * loop, that work gives way to it (ForegroundPressure).
   */
  noteRequest(project: string): void {
    this.pressure?.noteRequest(project);
  }

  /**
   * Runs `write`, an in-process write of `bytes` for `project`, in one of the project's write
   * slots, its bytes paid (spendInBackground). A write that another operation's own step causes
   * (an alert its post or reserve fires) goes through `writeCaused` instead: that operation may
   * hold the project's last slot, and waiting for a second one could wait forever.
   */
  async write<T>(project: string, bytes: number, write: () => Promise<T>): Promise<T> {
    const release = await this.writing.acquire(project);
    this.writesNow.set(project, (this.writesNow.get(project) ?? 0) + 1);
    try {
      await this.spendInBackground(project, bytes);
      return await write();
    } finally {
      const left = this.writesNow.get(project)! - 1;
      if (left === 0) this.writesNow.delete(project);
      else this.writesNow.set(project, left);
      release();
    }
  }

  /**
   * Runs `write`, caused by a step of another operation (at most one per step: an alert), its
   * bytes paid but in no slot. Telling a nested write apart by async context instead
   * (AsyncLocalStorage) would turn on Node's promise hooks for the whole process, for good: every
   * promise of every request would pay for them.
   */
  async writeCaused<T>(project: string, bytes: number, write: () => Promise<T>): Promise<T> {
    await this.spendInBackground(project, bytes);
    return write();
  }

  /** `project`'s writes holding a slot now (waiting for their bytes' time or turn, or in Redis). */
  writesInFlight(project: string): number {
    return this.writesNow.get(project) ?? 0;
  }

  /**
   * Resolves once `project`'s byte rate has room again and none of its background work waits for
   * its turn (at once when so): background work that would take something first (push delivery
   * reserving messages) waits here, holding nothing, so what waits for a turn (while other
   * tenants' requests come first) is never more than what was taken before.
   */
  async ready(project: string): Promise<void> {
    const wait = this.pacer?.backlogMs(project) ?? 0;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await this.turns.drained(project);
  }

  /**
   * Resolves in `project`'s turn for `bytes` of work whose time the caller booked already (a large
   * body's chunk, read as it arrives: the large-body gate).
   */
  turn(project: string, bytes: number): Promise<void> {
    return this.turns.next(project, bytes);
  }

  /** Books `bytes` of background work for `project`; resolves when it may start (its time, then its turn). */
  async spendInBackground(project: string, bytes: number): Promise<void> {
    const wait = this.pacer?.book(project, bytes) ?? 0;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await this.turns.next(project, bytes);
  }
}

/**
 * The budget of FERRUM_LARGE_BODY_BYTES_PER_SECOND: a quiet project's first quarter second of
 * bytes (at least one large body) passes at once.
 */
export function projectBudgetOf(largeBodies: { thresholdBytes: number; bytesPerSecond: number }): ProjectBudget {
  const { thresholdBytes, bytesPerSecond } = largeBodies;
  return new ProjectBudget({
    bytesPerSecond,
    burstBytes: Math.max(thresholdBytes, bytesPerSecond / 4),
    sliceBytes: SLICE_BYTES,
    writesInFlight: WRITES_IN_FLIGHT,
    pieceBytes: PIECE_BYTES,
    yieldMs: YIELD_MS,
  });
}
