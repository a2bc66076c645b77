import type { HotContainer } from './hot-container.js';

/** Settings of a route that may change without changing its containers. */
export interface RouteSettings {
  maxConcurrency: number;
  idleTimeoutMs: number;
}

/** No container of the route became free in time for the call. */
export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
}

interface Waiter {
  resolve(container: HotContainer): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * The hot containers of one route version: up to maxConcurrency of them; a call takes an idle
 * one (the most recently used), starts one while under the limit, or waits its turn (FIFO).
 * Idle containers stop after idleTimeoutMs. A retired pool (its route changed) serves the calls
 * already waiting, then stops its containers as they come free.
 */
export class HotRoutePool {
  private readonly live = new Set<HotContainer>();
  private readonly idle: HotContainer[] = [];
  private readonly idleTimers = new Map<HotContainer, NodeJS.Timeout>();
  private readonly waiters: Waiter[] = [];
  private starting = 0;
  private retired = false;
  /** Starts and stops under way, awaited by close(). */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private settings: RouteSettings,
    private readonly startContainer: () => Promise<HotContainer>,
    /** Called when the pool holds no container and no call. */
    private readonly onEmpty: (pool: HotRoutePool) => void,
  ) {}

  update(settings: RouteSettings): void {
    this.settings = settings;
  }

  /** Containers running or starting. */
  get size(): number {
    return this.live.size + this.starting;
  }

  /**
   * A container for one call, waiting at most waitMs for a busy one to come free. The time a
   * container takes to start for the call is not counted: a first call is not failed by a slow start.
   */
  acquire(waitMs: number): Promise<HotContainer> {
    if (this.waiters.length === 0 && this.idle.length > 0) return Promise.resolve(this.takeIdle());
    return new Promise<HotContainer>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, timer: setTimeout(() => this.expire(waiter, waitMs), waitMs) };
      this.waiters.push(waiter);
      this.pump();
    });
  }

  /** A call is done with a container that is still alive. */
  release(container: HotContainer): void {
    if (!container.alive) return;
    if (this.waiters.length > 0) {
      this.handOver(container);
    } else if (this.retired || this.live.size > this.settings.maxConcurrency) {
      this.stop(container);
    } else {
      this.idle.push(container);
      this.idleTimers.set(
        container,
        setTimeout(() => this.stop(container), this.settings.idleTimeoutMs),
      );
    }
  }

  /** The route changed: idle containers stop now, busy ones when their call is done. */
  retire(): void {
    this.retired = true;
    for (const container of [...this.idle]) this.stop(container);
    this.checkEmpty();
  }

  /** Fails waiting calls and stops every container. */
  async close(reason: string): Promise<void> {
    this.retired = true;
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error(reason));
    }
    while (this.pending.size > 0 || this.live.size > 0) {
      for (const container of [...this.live]) this.stop(container);
      await Promise.allSettled([...this.pending]);
    }
  }

  private track(work: Promise<unknown>): void {
    const tracked = work.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  private pump(): void {
    while (this.waiters.length > 0 && this.idle.length > 0) this.handOver(this.takeIdle());
    while (this.waiters.length > this.starting && this.size < this.settings.maxConcurrency) this.startOne();
  }

  private startOne(): void {
    this.starting++;
    const start = this.startContainer().then(
      (container) => {
        this.starting--;
        this.live.add(container);
        container.onDeath = () => this.onDeath(container);
        this.release(container);
      },
      (error: Error) => {
        this.starting--;
        const waiter = this.waiters.shift();
        if (waiter) {
          clearTimeout(waiter.timer);
          waiter.reject(error);
        }
        this.pump();
        this.checkEmpty();
      },
    );
    this.track(start);
  }

  private handOver(container: HotContainer): void {
    const waiter = this.waiters.shift()!;
    clearTimeout(waiter.timer);
    waiter.resolve(container);
  }

  private takeIdle(): HotContainer {
    const container = this.idle.pop()!;
    clearTimeout(this.idleTimers.get(container));
    this.idleTimers.delete(container);
    return container;
  }

  private expire(waiter: Waiter, waitMs: number): void {
    const at = this.waiters.indexOf(waiter);
    if (at < 0) return;
    if (at < this.starting) {
      // A container starting now is this call's: its start does not count against the call.
      waiter.timer = setTimeout(() => this.expire(waiter, waitMs), waitMs);
      return;
    }
    this.waiters.splice(at, 1);
    waiter.reject(
      new WaitTimeoutError(
        `no container of the route came free within ${waitMs} ms (max_concurrency ${this.settings.maxConcurrency})`,
      ),
    );
    this.checkEmpty();
  }

  private onDeath(container: HotContainer): void {
    this.forget(container);
    this.track(container.removed);
    this.pump();
    this.checkEmpty();
  }

  private stop(container: HotContainer): void {
    this.forget(container);
    this.track(container.stop());
    this.checkEmpty();
  }

  private forget(container: HotContainer): void {
    this.live.delete(container);
    const at = this.idle.indexOf(container);
    if (at >= 0) this.idle.splice(at, 1);
    clearTimeout(this.idleTimers.get(container));
    this.idleTimers.delete(container);
  }

  private checkEmpty(): void {
    if (this.size === 0 && this.waiters.length === 0) this.onEmpty(this);
  }
}
