import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../api/context.js';
import { CacheStore } from '../src/cache/cache-store.js';
import { LeaderLoop } from '../src/core/leader-loop.js';

const CACHES_PER_PROJECT_PER_PASS = 100;
const ITEMS_PER_CACHE_PER_PASS = 1000;

/**
 * Reclaims expired cache items so they cost no memory once they have expired, even in caches
 * nobody reads or writes again. Reads already ignore expired items; this only frees memory.
 */
export class CacheSweeper {
  constructor(private readonly store: CacheStore) {}

  /** One pass over every project with expiring items; returns how many items were reclaimed. */
  async sweepOnce(now = Date.now(), isStopping: () => boolean = () => false): Promise<number> {
    let reclaimed = 0;
    let cursor = '0';
    do {
      const [next, projectIds] = await this.store.scanSweptProjects(cursor);
      for (const projectId of projectIds) reclaimed += await this.sweepProject(projectId, now);
      cursor = next;
    } while (cursor !== '0' && !isStopping());
    return reclaimed;
  }

  private async sweepProject(projectId: string, now: number): Promise<number> {
    const due = await this.store.dueCaches(projectId, now, CACHES_PER_PROJECT_PER_PASS);
    let reclaimed = 0;
    for (const cacheName of due)
      reclaimed += await this.store.sweepCache(projectId, cacheName, ITEMS_PER_CACHE_PER_PASS);
    return reclaimed;
  }
}

/** Runs the sweeper on the leader controller unless FERRUM_CACHE_SWEEP_MS is 0. */
export function startCacheSweeper(ctx: AppContext, log: FastifyBaseLogger): LeaderLoop {
  const sweeper = new CacheSweeper(new CacheStore(ctx.redis, ctx.keys));
  const loop = new LeaderLoop({
    redis: ctx.redis,
    keys: ctx.keys,
    name: 'cache-sweeper',
    intervalMs: ctx.config.cache.sweepIntervalMs,
    log,
    leadership: ctx.metrics.leadership,
    work: async (isStopping) => {
      const reclaimed = await sweeper.sweepOnce(Date.now(), isStopping);
      if (reclaimed > 0) log.debug({ reclaimed }, 'cache sweeper reclaimed expired items');
    },
  });
  loop.start();
  return loop;
}
