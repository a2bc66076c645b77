import { performance } from 'node:perf_hooks';
import type { ForegroundPressure } from './foreground-pressure.js';

export interface TurnSettings {
  /** Most work started in one slice (at least one piece). */
  sliceBytes: number;
  /**
   * What a piece costs beside its bytes (its scripts, its answer, its records), in bytes of
   * work: without it a slice could start thousands of one-byte pieces.
   */
  pieceBytes: number;
  /**
   * Under another tenant's requests on a busy loop (pressure), how long the next slice waits after
   * a whole slice (after less, in proportion).
   */
  yieldMs: number;
}

/**
 * Background work in turns of the event loop: each waiter starts in a turn of its own (or shares
 * one with others up to `sliceBytes` of work), the projects waiting served in turn, so between
 * two slices the event loop reads every socket that is ready. A request of another tenant then
 * waits behind one slice of one tenant's background work, not behind all of it: a fan-out of a
 * message to 64 queues is 64 slices, not one 3 MB burst of encoding. While other tenants'
 * requests keep a busy loop busy (ForegroundPressure), the next slice waits `yieldMs`: those
 * requests come first, and background work keeps a bounded share of the loop, never none.
 */
export class EventLoopTurns {
  /** Each waiting project's waiters; the map's order is the turn (a project served goes last). */
  private readonly waiting = new Map<string, Array<{ bytes: number; start: () => void }>>();
  private scheduled = false;
  /** Who waits for a project's waiters to have started (drained). */
  private readonly drainWaiters = new Map<string, Array<() => void>>();
  /** While other tenants' requests press (ForegroundPressure), no slice starts before this time. */
  private yieldingUntil = 0;
  private readonly settings: TurnSettings;

  constructor(
    settings: Partial<TurnSettings> & { sliceBytes: number },
    private readonly pressure: ForegroundPressure | null = null,
  ) {
    this.settings = { pieceBytes: 0, yieldMs: 0, ...settings };
  }

  /** Resolves in a coming turn of the event loop, when `project`'s turn comes. */
  next(project: string, bytes: number): Promise<void> {
    return new Promise((start) => {
      const queue = this.waiting.get(project) ?? [];
      queue.push({ bytes, start });
      this.waiting.set(project, queue);
      this.schedule();
    });
  }

  /** Resolves once none of `project`'s waiters waits any more (at once when none does). */
  drained(project: string): Promise<void> {
    if (!this.waiting.has(project)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.drainWaiters.get(project) ?? [];
      waiters.push(resolve);
      this.drainWaiters.set(project, waiters);
    });
  }

  /** Waiters not started yet (for tests and metrics). */
  get size(): number {
    let count = 0;
    for (const queue of this.waiting.values()) count += queue.length;
    return count;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.yieldingUntil - performance.now();
    if (wait > 0) setTimeout(this.runSliceNow, wait);
    // An immediate set while immediates run waits for the next turn, after the poll phase.
    else setImmediate(this.runSliceNow);
  }

  private readonly runSliceNow = () => this.runSlice();

  private resolveDrained(project: string): void {
    const waiters = this.drainWaiters.get(project);
    if (!waiters) return;
    this.drainWaiters.delete(project);
    for (const resolve of waiters) resolve();
  }

  /** Starts waiters, project by project, until a slice's bytes are started (at least one). */
  private runSlice(): void {
    this.scheduled = false;
    let started = 0;
    const { sliceBytes, pieceBytes, yieldMs } = this.settings;
    const yielding = this.pressure?.yieldsTo(this.waiting) ?? false;
    while (this.waiting.size > 0 && (started === 0 || started < sliceBytes)) {
      const [project, queue] = this.waiting.entries().next().value as [
        string,
        Array<{ bytes: number; start: () => void }>,
      ];
      const next = queue.shift()!;
      this.waiting.delete(project);
      if (queue.length > 0) this.waiting.set(project, queue);
      else this.resolveDrained(project);
      started += Math.max(next.bytes, 1) + pieceBytes;
      next.start();
    }
    // Under pressure the next slice waits in proportion to this one's work: a whole slice, yieldMs.
    if (yielding) this.yieldingUntil = performance.now() + (yieldMs * Math.min(started, sliceBytes)) / sliceBytes;
    if (this.waiting.size > 0) this.schedule();
  }
}
