/**
 * Spaces each key's bytes to `rate` per second, a token bucket of `burst` bytes: a quiet key's
 * first `burst` bytes pass at once, later bytes wait until the key's earlier ones had their time.
 */
export class KeyedPacer {
  private readonly freeAt = new Map<string, number>();

  constructor(
    private readonly rate: number,
    private readonly burst: number,
  ) {}

  /** How long `bytes` just read for `key` wait before they are passed on, in ms; books their time. */
  book(key: string, bytes: number): number {
    const now = Date.now();
    const start = Math.max(now, this.freeAt.get(key) ?? 0);
    const end = start + (bytes / this.rate) * 1000;
    this.freeAt.set(key, end);
    this.forgetPast(now);
    return Math.max(0, end - now - (this.burst / this.rate) * 1000);
  }

  /** How long bytes booked for `key` now would wait, in ms (0: its burst has room); books nothing. */
  backlogMs(key: string): number {
    const booked = (this.freeAt.get(key) ?? 0) - Date.now();
    return Math.max(0, booked - (this.burst / this.rate) * 1000);
  }

  /** Keys with time booked ahead (for tests and metrics). */
  get size(): number {
    return this.freeAt.size;
  }

  private forgetPast(now: number): void {
    if (this.freeAt.size < 1000) return;
    for (const [key, at] of this.freeAt) if (at < now) this.freeAt.delete(key);
  }
}

/** FIFO slots per key: `acquire` resolves when one is free; its release function frees it once. */
export class KeyedSlots {
  private readonly held = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly size: number) {}

  acquire(key: string): Promise<() => void> {
    if ((this.held.get(key) ?? 0) < this.size) return Promise.resolve(this.take(key));
    return new Promise((resolve) => {
      const queue = this.waiting.get(key) ?? [];
      queue.push(() => resolve(this.take(key)));
      this.waiting.set(key, queue);
    });
  }

  /** Keys holding or waiting for a slot. */
  get keys(): number {
    return new Set([...this.held.keys(), ...this.waiting.keys()]).size;
  }

  private take(key: string): () => void {
    this.held.set(key, (this.held.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(key);
    };
  }

  private release(key: string): void {
    const queue = this.waiting.get(key);
    const next = queue?.shift();
    if (queue && queue.length === 0) this.waiting.delete(key);
    const held = (this.held.get(key) ?? 1) - 1;
    if (held === 0) this.held.delete(key);
    else this.held.set(key, held);
    next?.();
  }
}
