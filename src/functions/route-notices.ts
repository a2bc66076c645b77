import type { RedisClient } from '../core/redis.js';

/** A deleted route (or, without a path, every route of an app): its hot containers are stopped. */
export interface RouteGone {
  app: string;
  path?: string;
}

/** The route a notice says is gone, or null when it tells of some other change. */
export function goneRouteOf(message: string): RouteGone | null {
  if (message === '*') return null;
  try {
    const { gone } = JSON.parse(message) as { gone?: RouteGone };
    return typeof gone?.app === 'string' ? gone : null;
  } catch {
    return null;
  }
}

/**
 * Tells every process that some app or route changed, so that cached routes are read again:
 * listeners in this process at once, other processes through pub/sub. A deletion names the
 * route, so runners stop its hot containers.
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

  async changed(gone?: RouteGone): Promise<void> {
    for (const listener of this.listeners) listener();
    await this.redis.publish(this.channel, gone ? JSON.stringify({ gone }) : '*');
  }
}
