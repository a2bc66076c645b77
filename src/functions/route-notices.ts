import type { RedisClient } from '../core/redis.js';

/**
 * Tells every process that some app or route changed, so that cached routes are read again:
 * listeners in this process at once, other processes through pub/sub.
 */
export class RouteNotices {
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly redis: RedisClient,
    readonly channel: string,
  ) {}

  /** Calls `listener` on every change made in this process; returns how to stop. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async changed(): Promise<void> {
    for (const listener of this.listeners) listener();
    await this.redis.publish(this.channel, '*');
  }
}
