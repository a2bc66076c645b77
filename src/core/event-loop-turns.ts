/**
 * Background work in turns of the event loop: each waiter starts in a turn of its own (or shares
 * one with others up to `sliceBytes` of work), the projects waiting served in turn, so between
 * two slices the event loop reads every socket that is ready. A request of another tenant then
 * waits behind one slice of one tenant's background work, not behind all of it: a fan-out of a
 * message to 64 queues is 64 slices, not one 3 MB burst of encoding.
 */
export class EventLoopTurns {
  /** Each waiting project's waiters; the map's order is the turn (a project served goes last). */
  private readonly waiting = new Map<string, Array<{ bytes: number; start: () => void }>>();
  private scheduled = false;

  constructor(private readonly sliceBytes: number) {}

  /** Resolves in a coming turn of the event loop, when `project`'s turn comes. */
  next(project: string, bytes: number): Promise<void> {
    return new Promise((start) => {
      const queue = this.waiting.get(project) ?? [];
      queue.push({ bytes, start });
      this.waiting.set(project, queue);
      this.schedule();
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
    // An immediate set while immediates run waits for the next turn, after the poll phase.
    setImmediate(() => this.runSlice());
  }

  /** Starts waiters, project by project, until a slice's bytes are started (at least one). */
  private runSlice(): void {
    this.scheduled = false;
    let started = 0;
    while (this.waiting.size > 0 && (started === 0 || started < this.sliceBytes)) {
      const [project, queue] = this.waiting.entries().next().value as [
        string,
        Array<{ bytes: number; start: () => void }>,
      ];
      const next = queue.shift()!;
      this.waiting.delete(project);
      if (queue.length > 0) this.waiting.set(project, queue);
      started += Math.max(next.bytes, 1);
      next.start();
    }
    if (this.waiting.size > 0) this.schedule();
  }
}
