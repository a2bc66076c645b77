/** A value loaded for a key, or nothing to keep (the key has none). */
export type Load<V> = (key: string) => Promise<V | undefined>;

interface Entry<V> {
  value: V;
  /** Never served from this time on. */
  expiresAt: number;
  /** From this time on, a read loads the key again in the background (once). */
  refreshAt: number;
}

/** The share of an entry's life it is served before a read refreshes it: drawn per entry in [FROM, FROM + SPREAD). */
const REFRESH_FROM = 0.5;
const REFRESH_SPREAD = 0.3;

/**
 * An in-process cache of values loaded by key, each served at most `ttlMs` after its load began,
 * bounded so it cannot grow without end. A key in steady use never expires on a request: a read
 * in the last part of its entry's life (from a point drawn per entry, so that entries loaded
 * together do not all refresh together) loads it again in the background and is answered from the
 * entry meanwhile. One load per key is in flight at a time; the reads that miss meanwhile share
 * it. A background load that fails, or finds nothing, drops the entry: the next read loads it and
 * sees why. An invalidation (delete, deleteWhere, clear) also voids the loads in flight: what
 * they read may predate it, so they are not stored, and a read after it waits for a load of its own.
 */
export class RefreshAheadCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly loading = new Map<string, Promise<V | undefined>>();
  /** Counts invalidations: a load stores its value only when none came since it began. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly load: Load<V>,
    private readonly maxEntries = 10_000,
  ) {}

  /** The cached value (undefined when none or expired), with no wait; starts a refresh when one is due. */
  peek(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const now = Date.now();
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    if (entry.refreshAt <= now && !this.loading.has(key)) {
      // Once per entry: a refresh that is still running, or failed, is not started again.
      entry.refreshAt = Infinity;
      this.loadOnce(key).catch(() => undefined);
    }
    return entry.value;
  }

  /** The cached value, else the key's load (shared with any other read waiting for it). */
  get(key: string): Promise<V | undefined> {
    const cached = this.peek(key);
    if (cached !== undefined) return Promise.resolve(cached);
    return this.loading.get(key) ?? this.loadOnce(key);
  }

  /** Caches a value read apart from the load (read from `readFrom` on: its entry lives from then). */
  set(key: string, value: V, readFrom = Date.now()): void {
    this.store(key, value, readFrom);
  }

  /** Replaces a cached value (keeping its entry's times); nothing when the key has none. */
  update(key: string, change: (value: V) => V): void {
    const entry = this.entries.get(key);
    if (entry) entry.value = change(entry.value);
  }

  delete(key: string): void {
    this.invalidated();
    this.entries.delete(key);
  }

  /** Drops every entry whose value `matches` (a scan: for rare invalidations, not per request). */
  deleteWhere(matches: (value: V) => boolean): void {
    this.invalidated();
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }

  clear(): void {
    this.invalidated();
    this.entries.clear();
  }

  private invalidated(): void {
    this.generation += 1;
    this.loading.clear();
  }

  private loadOnce(key: string): Promise<V | undefined> {
    const generation = this.generation;
    const started = Date.now();
    const current = () => generation === this.generation;
    const loaded = this.load(key).then(
      (value) => {
        if (current()) {
          this.loading.delete(key);
          this.store(key, value, started);
        }
        return value;
      },
      (error: unknown) => {
        if (current()) {
          this.loading.delete(key);
          this.entries.delete(key);
        }
        throw error;
      },
    );
    this.loading.set(key, loaded);
    return loaded;
  }

  private store(key: string, value: V | undefined, loadedFrom: number): void {
    if (value === undefined || this.ttlMs <= 0) {
      this.entries.delete(key);
      return;
    }
    if (!this.entries.has(key) && this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, {
      value,
      expiresAt: loadedFrom + this.ttlMs,
      refreshAt: loadedFrom + this.ttlMs * (REFRESH_FROM + Math.random() * REFRESH_SPREAD),
    });
  }
}
