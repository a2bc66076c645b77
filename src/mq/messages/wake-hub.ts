import type { EventBus } from '../../core/bus.js';

/**
 * One waiting reserve request. `next()` resolves when the queue announces new messages, when
 * `ms` pass, or when the waiter is closed; a wake-up that arrives while the owner is busy
 * reserving is remembered so it is not lost.
 */
export class Waiter {
  private pending = false;
  private resolveWait: (() => void) | null = null;
  closed = false;

  constructor(private readonly leave: (waiter: Waiter) => void) {}

  get waiting(): boolean {
    return this.resolveWait !== null;
  }

  wake(): void {
    if (this.resolveWait) this.resolveWait();
    else this.pending = true;
  }

  next(ms: number): Promise<void> {
    if (this.pending || this.closed) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.resolveWait = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.resolveWait = done;
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wake();
    this.leave(this);
  }
}

interface Channel {
  waiters: Set<Waiter>;
  subscribed: Promise<() => Promise<void>>;
}

/**
 * Long-poll waiters of this process, grouped by queue wake channel. Each channel with waiters
 * is one subscription on the process's shared pub/sub connection, so a thousand waiting
 * requests cost no extra Redis connections. A wake message carries how many messages became
 * available; that many waiting requests are woken (requests busy reserving always retry).
 */
export class WakeHub {
  private readonly channels = new Map<string, Channel>();
  private closed = false;

  constructor(private readonly bus: EventBus) {}

  /** Registers a waiter; resolves once the channel subscription is active. After closeAll, a closed waiter. */
  async listen(channelName: string): Promise<Waiter> {
    if (this.closed) {
      const waiter = new Waiter(() => undefined);
      waiter.close();
      return waiter;
    }
    let channel = this.channels.get(channelName);
    if (!channel) {
      const waiters = new Set<Waiter>();
      channel = {
        waiters,
        subscribed: this.bus.subscribe(channelName, (message) => this.wake(waiters, Number(message))),
      };
      this.channels.set(channelName, channel);
    }
    const joined = channel;
    const waiter = new Waiter((left) => this.leave(channelName, joined, left));
    joined.waiters.add(waiter);
    await joined.subscribed;
    return waiter;
  }

  /** Wakes every waiter and every later one (shutdown): their requests answer with what they have. */
  closeAll(): void {
    this.closed = true;
    for (const channel of [...this.channels.values()]) for (const waiter of [...channel.waiters]) waiter.close();
  }

  get waiterCount(): number {
    let count = 0;
    for (const channel of this.channels.values()) count += channel.waiters.size;
    return count;
  }

  private wake(waiters: Set<Waiter>, available: number): void {
    let budget = Number.isFinite(available) && available > 0 ? available : 1;
    for (const waiter of [...waiters]) {
      if (!waiter.waiting) {
        waiter.wake();
      } else if (budget > 0) {
        budget -= 1;
        // Woken waiters go to the back, so the next wake-up reaches the others first.
        waiters.delete(waiter);
        waiters.add(waiter);
        waiter.wake();
      }
    }
  }

  private leave(channelName: string, channel: Channel, waiter: Waiter): void {
    channel.waiters.delete(waiter);
    if (channel.waiters.size > 0 || this.channels.get(channelName) !== channel) return;
    this.channels.delete(channelName);
    void channel.subscribed.then((unsubscribe) => unsubscribe()).catch(() => undefined);
  }
}
