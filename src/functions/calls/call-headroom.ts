/** How long what a read found lets sync calls in without reading again (as ProjectMessageBytes' sums). */
const FRESH_MS = 1000;
const MOST_PROJECTS = 10_000;

interface Room {
  until: number;
  /** How many more calls it lets in. */
  calls: number;
}

/**
 * A project's room under stored_bytes, as the last admission read it, counted down in calls: a
 * read that found `free` bytes below the allowance lets in, for FRESH_MS, as many more sync calls
 * as could each add their most bytes (record and log) and still leave the next one room. Each of
 * them would have been let in by a read of its own, save for what other processes and services
 * stored meanwhile: the staleness the project's message bytes already have. A project near its
 * quota has no such room: each of its calls reads.
 */
export class KnownRoom {
  private readonly rooms = new Map<string, Room>();

  constructor(
    /** The most bytes one call's record and log add. */
    private readonly mostCallBytes: number,
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
    // The k-th call after the read is let in when k calls' most bytes stay below `free`.
    const calls = Math.floor((free - 1) / this.mostCallBytes);
    if (calls <= 0) {
      this.rooms.delete(projectId);
      return;
    }
    if (this.rooms.size >= MOST_PROJECTS) this.rooms.clear();
    this.rooms.set(projectId, { until: Date.now() + FRESH_MS, calls });
  }
}
