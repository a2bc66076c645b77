import type { RedisClient } from '../../core/redis.js';

/**
 * Routes whose hot containers are to stop: a deleted route, every route of an app (no path), or
 * every route of a suspended or deleted project.
 */
export type RouteGone = { app: string; path?: string } | { project: string };

/** The route a notice says is gone, or null when it tells of some other change. */
export function goneRouteOf(message: string): RouteGone | null {
  if (message === '*') return null;
  try {
    const { gone } = JSON.parse(message) as { gone?: Record<string, unknown> };
    if (typeof gone?.project === 'string') return { project: gone.project };
    if (typeof gone?.app !== 'string') return null;
    return typeof gone.path === 'string' ? { app: gone.app, path: gone.path } : { app: gone.app };
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
