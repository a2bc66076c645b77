import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** How long one reading of the event loop's utilization covers. */
const WINDOW_MS = 50;

/**
 * Whether background work should give way to other tenants' requests: their requests arrived
 * since the last slice of background work, and the event loop was busy (its utilization over the
 * last window at least `busyShare`). One tenant's own requests never slow its own background
 * work, and a quiet process runs it at full speed; only under contention does it wait its gap
 * (EventLoopTurns), so another tenant's requests get the loop first.
 */
export class ForegroundPressure {
  /** The first project with a request since the last slice, and whether another one had one too. */
  private firstArrival: string | null = null;
  private otherArrival = false;
  /** When the current reading began (none yet: the first question reads the loop since this was made). */
  private windowStart = -Infinity;
  private windowUsage: EventLoopUtilization = performance.eventLoopUtilization();
  private busy = false;

  constructor(private readonly busyShare: number) {}

  /** `project` had a request authorized now (constant memory, whatever the number of projects). */
  noteRequest(project: string): void {
    if (this.firstArrival === null) this.firstArrival = project;
    else if (project !== this.firstArrival) this.otherArrival = true;
  }

  /**
   * Whether the background work of `waiting` (the projects with work waiting) competes with
   * another project's requests on a busy loop; forgets the arrivals (each slice asks once).
   */
  yieldsTo(waiting: ReadonlyMap<string, unknown>): boolean {
    const first = this.firstArrival;
    const other = this.otherArrival;
    this.firstArrival = null;
    this.otherArrival = false;
    if (first === null) return false;
    const competing = other || waiting.size > 1 || !waiting.has(first);
    return competing && this.loopBusy();
  }

  private loopBusy(): boolean {
    const now = performance.now();
    if (now - this.windowStart >= WINDOW_MS) {
      const usage = performance.eventLoopUtilization();
      this.busy = performance.eventLoopUtilization(usage, this.windowUsage).utilization >= this.busyShare;
      this.windowUsage = usage;
      this.windowStart = now;
    }
    return this.busy;
  }
}
