/**
 * The push deliverer's delivery slots, shared fairly between projects: at most `size` holders
 * at once, and one project at most its share, `size / (projects using or waiting + 1)`, so a
 * slot is always left for a project that comes next (one whose subscribers hang cannot take
 * every slot). Waiters are served in turn, project by project, each project's in order.
 */
export class Slots {
  private used = 0;
  private readonly held = new Map<string, number>();
  /** Each waiting project's waiters; the map's order is the turn (a project served goes last). */
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly size: number) {}

  get inUse(): number {
    return this.used;
  }

  async run<T>(project: string, task: () => Promise<T>): Promise<T> {
    await this.acquire(project);
    try {
      return await task();
    } finally {
      this.release(project);
    }
  }

  private share(): number {
    let active = this.held.size;
    for (const project of this.waiting.keys()) if (!this.held.has(project)) active += 1;
    return Math.max(1, Math.floor(this.size / (active + 1)));
  }

  private mayTake(project: string): boolean {
    return this.used < this.size && (this.held.get(project) ?? 0) < this.share();
  }

  private take(project: string): void {
    this.used += 1;
    this.held.set(project, (this.held.get(project) ?? 0) + 1);
  }

  private acquire(project: string): Promise<void> {
    if (!this.waiting.has(project) && this.mayTake(project)) {
      this.take(project);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(project) ?? [];
      queue.push(resolve);
      this.waiting.set(project, queue);
    });
  }

  private release(project: string): void {
    this.used -= 1;
    const left = (this.held.get(project) ?? 1) - 1;
    if (left === 0) this.held.delete(project);
    else this.held.set(project, left);
    let served = true;
    while (served) served = this.serveNext();
  }

  /** Hands one slot to the first waiting project that may take it; false when none may. */
  private serveNext(): boolean {
    for (const [project, queue] of this.waiting) {
      if (!this.mayTake(project)) continue;
      const next = queue.shift()!;
      this.waiting.delete(project);
      if (queue.length > 0) this.waiting.set(project, queue);
      this.take(project);
      next();
      return true;
    }
    return false;
  }
}
