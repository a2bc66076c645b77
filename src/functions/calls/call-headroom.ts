/** How long a read's finding lets sync calls in unread: the staleness ProjectMessageBytes' sums have too. */
const FRESH_MS = 1000;
/** Projects remembered at most (then all are forgotten: each reads again). */
const MAX_PROJECTS = 10_000;

interface Headroom {
  until: number;
  /** How many more calls it lets in. */
  calls: number;
}

/**
 * Each project's room under stored_bytes, counted in calls: after a read finds `free` bytes, the
 * next calls that would each still fit at their largest (record and log) are let in without a
 * read, for FRESH_MS. A project near its quota gets none, so each of its calls reads.
 */
export class CallHeadroom {
  private readonly rooms = new Map<string, Headroom>();

  constructor(
    /** The largest one call's record and log may be, in bytes. */
    private readonly maxCallBytes: number,
  ) {}

  /** Takes one call's place in the room known for the project; false when it must be read again. */
  take(projectId: string): boolean {
    const room = this.rooms.get(projectId);
    if (room === undefined || room.calls <= 0 || room.until <= Date.now()) return false;
    room.calls -= 1;
    return true;
  }

  /** A read found `free` bytes below the project's allowance, for a call it let in. */
  found(projectId: string, free: number): void {
    // The k-th call after the read is let in when k calls at their largest stay below `free`.
    const calls = Math.floor((free - 1) / this.maxCallBytes);
    if (calls <= 0) {
      this.rooms.delete(projectId);
      return;
    }
    if (this.rooms.size >= MAX_PROJECTS) this.rooms.clear();
    this.rooms.set(projectId, { until: Date.now() + FRESH_MS, calls });
  }
}
