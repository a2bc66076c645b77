import type { KeySpace } from '../core/redis.js';

/**
 * Key names of the cache service. Every key of one project shares the hash tag
 * `{cache:<project>}`, so one script may touch a cache and the project's indexes together.
 */
export class CacheKeys {
  constructor(private readonly keys: KeySpace) {}

  private tag(projectId: string): string {
    return `{cache:${projectId}}`;
  }

  /** The nine keys of the item scripts that write, in the order cache-state.lua documents. */
  itemScriptKeys(projectId: string, cacheName: string): string[] {
    const tag = this.tag(projectId);
    return [
      ...this.cacheItems(projectId, cacheName),
      ...this.projectIndexes(projectId),
      this.keys.of(tag, 'cas-sequence'),
      this.keys.of(tag, 'bytes'),
      // The counter ProjectStorage reads for the project's stored_bytes quota.
      this.keys.of(tag, 'stored-bytes'),
      this.flags(projectId, cacheName),
    ];
  }

  /** The keys get.lua reads: values, cas, expiry and flags of one cache. */
  itemRead(projectId: string, cacheName: string): string[] {
    return [...this.cacheItems(projectId, cacheName), this.flags(projectId, cacheName)];
  }

  /** Memcached flags of a cache's items that have any (a later addition, beside the other keys). */
  private flags(projectId: string, cacheName: string): string {
    return this.keys.of(this.tag(projectId), 'flags', cacheName);
  }

  /** values, cas and expiry of one cache: all that the scripts that only read need. */
  cacheItems(projectId: string, cacheName: string): [string, string, string] {
    const tag = this.tag(projectId);
    return [
      this.keys.of(tag, 'values', cacheName),
      this.keys.of(tag, 'cas', cacheName),
      this.keys.of(tag, 'expiry', cacheName),
    ];
  }

  /** names and due: the project-wide indexes of caches. */
  projectIndexes(projectId: string): [string, string] {
    const tag = this.tag(projectId);
    return [this.keys.of(tag, 'names'), this.keys.of(tag, 'due')];
  }

  /** The projects that have stored expiring items: what the sweeper visits. */
  sweptProjects(): string {
    return this.keys.of('{cache}', 'swept-projects');
  }
}
