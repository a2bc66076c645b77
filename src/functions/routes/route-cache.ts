import type { EventBus } from '../../core/bus.js';
import { TtlCache } from '../../core/ttl-cache.js';
import type { RouteNotices } from './route-notices.js';
import type { LoadedRouteResult, RouteStore } from './route-store.js';

/** What a call needs to know of its route: the app, the route, whether the app's project is suspended. */
export interface CallRoute extends LoadedRouteResult {
  suspended: boolean;
}

/**
 * The routes calls read, kept in this process for `ttlMs`: every change to an app or route
 * and every suspension or its end (RouteNotices) empties it here at once and in the other
 * processes through pub/sub, so a call costs no Redis round trip for its route. Routes not found
 * are not kept.
 */
export class RouteCache {
  private readonly entries: TtlCache<CallRoute>;
  /** Moves on with every change: a load that began before one must not fill the cache. */
  private generation = 0;
  private readonly stopListening: () => void;

  constructor(
    private readonly routes: RouteStore,
    private readonly notices: RouteNotices,
    ttlMs: number,
  ) {
    this.entries = new TtlCache(ttlMs);
    this.stopListening = notices.onChange(() => this.drop());
  }

  /** Listens for changes made by other processes; returns how to stop. */
  async start(bus: EventBus): Promise<() => Promise<void>> {
    const unsubscribe = await bus.subscribe(this.notices.channel, () => this.drop());
    return async () => {
      this.stopListening();
      await unsubscribe();
    };
  }

  /** The route as this process holds it now; undefined when it must be loaded (load). */
  cached(appName: string, path: string): CallRoute | undefined {
    return this.entries.get(`${appName}\0${path}`);
  }

  async load(appName: string, path: string): Promise<CallRoute> {
    const key = `${appName}\0${path}`;
    const cached = this.entries.get(key);
    if (cached) return cached;
    const generation = this.generation;
    const [found, suspended] = await Promise.all([
      this.routes.loadRoute(appName, path),
      this.routes.isSuspended(appName),
    ]);
    const loaded = { ...found, suspended };
    // Misses are not kept: strangers guessing names must not fill the cache (nor does a creation need a notice).
    if (loaded.route && generation === this.generation) this.entries.set(key, loaded);
    return loaded;
  }

  private drop(): void {
    this.generation++;
    this.entries.clear();
  }
}
