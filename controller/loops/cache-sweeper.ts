import type { CacheStore } from '../../src/cache/cache-store.js';
import type { LeaderWork, LoopEnv } from '../loop-runner.js';

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

/** The loop table's cache-sweeper pass (the leader's, unless FERRUM_CACHE_SWEEP_MS is 0). */
export function cacheSweeperWork({ ctx, log }: LoopEnv): LeaderWork {
  const sweeper = new CacheSweeper(ctx.cache);
  return {
    pass: async (isStopping) => {
      const reclaimed = await sweeper.sweepOnce(Date.now(), isStopping);
      if (reclaimed > 0) log.debug({ reclaimed }, 'cache sweeper reclaimed expired items');
    },
  };
}
