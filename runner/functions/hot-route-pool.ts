/** What the pool needs of a hot container, whatever way calls reach it. */
export interface PooledContainer {
  readonly id: string;
  readonly alive: boolean;
  /** Set by the pool; called once when the container dies on its own (not when stopped). */
  onDeath: () => void;
  /** Resolves once the container is removed from the engine, however it ended. */
  readonly removed: Promise<void>;
  /** Kills and removes the container; resolves once it is gone. */
  stop(): Promise<void>;
}

/** Settings of a route that may change without changing its containers. */
export interface RouteSettings {
  maxConcurrency: number;
  idleTimeoutMs: number;
  /** Most calls waiting for a container at once; more are refused at once. */
  maxWaiting: number;
}

/** Every container of the route is busy: no container came free in time, or too many calls wait already. */
export class RouteBusyError extends Error {
  override name = 'RouteBusyError';
}

/**
 * Whether one more container may start now: yes (null), not until a container being removed is
 * gone ('wait': the pool is pumped again then), or why not.
 */
export type StartRoom = null | 'wait' | { refused: string };

interface Waiter<HotContainer> {
  resolve(container: HotContainer): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * The hot containers of one route version: up to maxConcurrency of them; a call takes an idle
 * one (the most recently used), starts one while under the limit, or waits its turn (FIFO) —
 * at most maxWaiting calls, each for a bounded time (back-pressure: the rest are refused).
 * Idle containers stop after idleTimeoutMs. A retired pool (its route changed) serves the calls
 * already waiting, then stops its containers as they come free.
 */
export class HotRoutePool<HotContainer extends PooledContainer> {
  private readonly live = new Set<HotContainer>();
  private readonly idle: HotContainer[] = [];
  /** When each idle container's idle time is up (epoch ms; the idle timeout as it was when it came free). */
  private readonly idleUntil = new Map<HotContainer, number>();
  /**
   * One timer for the pool's idle containers, at or before the first of their idle times to end:
   * a container coming free and being taken again sets and clears no timer of its own.
   */
  private idleTimer: NodeJS.Timeout | null = null;
  private idleTimerDue = 0;
  private readonly waiters: Waiter<HotContainer>[] = [];
  private starting = 0;
  /** Containers stopped or dead that the engine has not removed yet: they still take room. */
  private leaving = 0;
  private retired = false;
  /** Starts and stops under way, awaited by close(). */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private settings: RouteSettings,
    private readonly startContainer: () => Promise<HotContainer>,
    /** Called when the pool holds no container and no call. */
    private readonly onEmpty: (pool: HotRoutePool<HotContainer>) => void,
    /** Whether one more container may start now (e.g. under a quota of its owner). */
    private readonly mayStart: () => StartRoom = () => null,
    /** Called when a container of the pool is gone from the engine: room for another. */
    private readonly onRemoved: () => void = () => undefined,
  ) {}

  update(settings: RouteSettings): void {
    this.settings = settings;
  }

  get idleCount(): number {
    return this.idle.length;
  }

  /** Calls waiting for a container. */
  get waitingCount(): number {
    return this.waiters.length;
  }

  /** Started containers serving a call now. */
  get busyCount(): number {
    return this.live.size - this.idle.length;
  }

  /** Containers running or starting. */
  get size(): number {
    return this.live.size + this.starting;
  }

  /** Containers the engine holds for the pool: running, starting, or not yet removed. */
  get held(): number {
    return this.size + this.leaving;
  }

  /** Whether a container of the pool is being removed (room that comes free soon). */
  get removing(): boolean {
    return this.leaving > 0;
  }

  /** Tries again to start containers for the calls waiting (room came free elsewhere). */
  retryWaiting(): void {
    this.pump();
  }

  /**
   * A container for one call, waiting at most waitMs for a busy one to come free. The time a
   * container takes to start for the call is not counted: a first call is not failed by a slow start.
   */
  acquire(waitMs: number): Promise<HotContainer> {
    const idle = this.takeIdleNow();
    if (idle) return Promise.resolve(idle);
    if (this.waiters.length >= this.settings.maxWaiting + Math.max(0, this.settings.maxConcurrency - this.size)) {
      return Promise.reject(
        new RouteBusyError(
          `every container of the route is busy (max_concurrency ${this.settings.maxConcurrency}) and ${this.waiters.length} calls wait already`,
        ),
      );
    }
    return new Promise<HotContainer>((resolve, reject) => {
      const waiter: Waiter<HotContainer> = {
        resolve,
        reject,
        timer: setTimeout(() => this.expire(waiter, waitMs), waitMs),
      };
      this.waiters.push(waiter);
      this.pump();
    });
  }

  /** An idle container for one call now, when one is and no call waits before it; else null (then acquire). */
  takeIdleNow(): HotContainer | null {
    return this.waiters.length === 0 && this.idle.length > 0 ? this.takeIdle() : null;
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
      const until = Date.now() + this.settings.idleTimeoutMs;
      this.idleUntil.set(container, until);
      if (this.idleTimer === null || this.idleTimerDue > until) this.setIdleTimer(until);
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

  /** Stops the container idle the longest, if any; whether one was. */
  stopIdle(): boolean {
    const container = this.idle[0];
    if (container) this.stop(container);
    return container !== undefined;
  }

  private pump(): void {
    while (this.waiters.length > 0 && this.idle.length > 0) this.handOver(this.takeIdle());
    while (this.waiters.length > this.starting && this.size < this.settings.maxConcurrency) {
      const room = this.mayStart();
      if (room === null) {
        this.startOne();
        continue;
      }
      // With no container of its own to wait for, nor room coming, no call here would be served: refused now.
      if (room !== 'wait' && this.size === 0) this.refuseWaiting(room.refused);
      break;
    }
  }

  private refuseWaiting(reason: string): void {
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new RouteBusyError(reason));
    }
    this.checkEmpty();
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
    this.idleUntil.delete(container);
    return container;
  }

  private expire(waiter: Waiter<HotContainer>, waitMs: number): void {
    const at = this.waiters.indexOf(waiter);
    if (at < 0) return;
    if (at < this.starting) {
      // A container starting now is this call's: its start does not count against the call.
      waiter.timer = setTimeout(() => this.expire(waiter, waitMs), waitMs);
      return;
    }
    this.waiters.splice(at, 1);
    waiter.reject(
      new RouteBusyError(
        `no container of the route came free within ${waitMs} ms (max_concurrency ${this.settings.maxConcurrency})`,
      ),
    );
    this.checkEmpty();
  }

  private onDeath(container: HotContainer): void {
    this.forget(container);
    this.untilRemoved(container.removed);
    this.pump();
    this.checkEmpty();
  }

  private stop(container: HotContainer): void {
    this.forget(container);
    this.untilRemoved(container.stop());
    this.checkEmpty();
  }

  /** A container counts as held until the engine has removed it, so no start overtakes its removal. */
  private untilRemoved(removal: Promise<void>): void {
    this.leaving++;
    const gone = () => {
      this.leaving--;
      this.onRemoved();
      this.checkEmpty();
    };
    this.track(removal.then(gone, gone));
  }

  private forget(container: HotContainer): void {
    this.live.delete(container);
    const at = this.idle.indexOf(container);
    if (at >= 0) this.idle.splice(at, 1);
    this.idleUntil.delete(container);
    if (this.live.size === 0) this.clearIdleTimer();
  }

  private setIdleTimer(due: number): void {
    this.clearIdleTimer();
    this.idleTimerDue = due;
    this.idleTimer = setTimeout(() => this.stopIdleOnesDue(), Math.max(0, due - Date.now()));
  }

  private clearIdleTimer(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Stops the idle containers whose idle time is up; the timer is set again for the next one's. */
  private stopIdleOnesDue(): void {
    this.idleTimer = null;
    const now = Date.now();
    let next = Infinity;
    for (const container of [...this.idle]) {
      const until = this.idleUntil.get(container)!;
      if (until <= now) this.stop(container);
      else next = Math.min(next, until);
    }
    if (next < Infinity && this.idleTimer === null) this.setIdleTimer(next);
  }

  private checkEmpty(): void {
    if (this.size === 0 && this.leaving === 0 && this.waiters.length === 0) this.onEmpty(this);
  }
}
