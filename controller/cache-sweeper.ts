import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../api/context.js';
import { CacheStore } from '../src/cache/cache-store.js';
import { Lease } from '../src/core/lease.js';

const CACHES_PER_PROJECT_PER_PASS = 100;
const ITEMS_PER_CACHE_PER_PASS = 1000;

/**
 * Reclaims expired cache items so they cost no memory once they have expired, even in caches
 * nobody reads or writes again. Reads already ignore expired items; this only frees memory.
 * Leader-elected: one controller sweeps at a time.
 */
export class CacheSweeper {
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly store: CacheStore,
    private readonly lease: Lease,
    private readonly intervalMs: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.pass;
    await this.lease.release().catch(() => undefined);
  }

  /** One pass over every project with expiring items; returns how many items were reclaimed. */
  async sweepOnce(now = Date.now()): Promise<number> {
    let reclaimed = 0;
    let cursor = '0';
    do {
      const [next, projectIds] = await this.store.scanSweptProjects(cursor);
      for (const projectId of projectIds) reclaimed += await this.sweepProject(projectId, now);
      cursor = next;
    } while (cursor !== '0' && !this.stopped);
    return reclaimed;
  }

  private async sweepProject(projectId: string, now: number): Promise<number> {
    const due = await this.store.dueCaches(projectId, now, CACHES_PER_PROJECT_PER_PASS);
    let reclaimed = 0;
    for (const cacheName of due) reclaimed += await this.store.sweepCache(projectId, cacheName, ITEMS_PER_CACHE_PER_PASS);
    return reclaimed;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.pass = this.tick().finally(() => {
        this.pass = null;
        this.schedule();
      });
    }, this.intervalMs);
  }

  private async tick(): Promise<void> {
    try {
      if (!(await this.lease.tryAcquire())) return;
      const reclaimed = await this.sweepOnce();
      if (reclaimed > 0) this.log.debug({ reclaimed }, 'cache sweeper reclaimed expired items');
    } catch (error) {
      this.log.warn({ err: error }, 'cache sweep failed; retrying next interval');
    }
  }
}

/** Starts the sweeper unless FERRUM_CACHE_SWEEP_MS is 0. */
export function startCacheSweeper(ctx: AppContext, log: FastifyBaseLogger): CacheSweeper | null {
  const intervalMs = ctx.config.cache.sweepIntervalMs;
  if (intervalMs === 0) return null;
  const lease = new Lease(ctx.redis, ctx.keys.of('lease', 'cache-sweeper'), Math.max(3 * intervalMs, 5000));
  const sweeper = new CacheSweeper(new CacheStore(ctx.redis, ctx.keys), lease, intervalMs, log);
  sweeper.start();
  return sweeper;
}
