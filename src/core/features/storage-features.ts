import type { EventBus } from '../bus.js';
import type { KeySpace, RedisClient } from '../redis.js';
import { VERSION } from '../version.js';
import { isKnownFeature, KNOWN_FEATURES, type FeatureName } from './feature-registry.js';
import { FeatureStore, type ProcessKind } from './feature-store.js';

/** How often a process renews its advert and re-reads the enabled flags (pub/sub tells it sooner). */
export const FEATURE_REFRESH_MS = 10_000;
/** An advert outlives a few missed renewals. */
const ADVERT_TTL_MS = FEATURE_REFRESH_MS * 3;

/** Thrown at start when Redis has a flag enabled that this release does not know. */
export class UnknownFeatureError extends Error {
  constructor(readonly unknown: string[]) {
    super(
      `Redis has storage feature flag(s) enabled that this release (${VERSION}) does not know: ${unknown.join(', ')}. ` +
        'A newer release wrote data this one could misread: run that release (or a newer one) instead.',
    );
    this.name = 'UnknownFeatureError';
  }
}

/** Anything that answers whether a storage flag is enabled, from process memory. */
export interface FeatureFlags {
  enabled(name: FeatureName): boolean;
}

/** Every flag enabled: a process with no Redis state of its own to consult (tests of one domain). */
export const ALL_FEATURES: FeatureFlags = { enabled: () => true };

export interface StorageFeaturesOptions {
  redis: RedisClient;
  keys: KeySpace;
  bus: EventBus;
  /** The process's id among the adverts (a runner's is its instance id). */
  id: string;
  kind: ProcessKind;
  /** Told when a later read finds a flag this release does not know (it keeps running). */
  onUnknown?: (error: UnknownFeatureError) => void;
  refreshMs?: number;
}

/**
 * One process's view of the storage flags: decided and checked once at start (before anything
 * else writes), then held in memory and re-read when a flag is enabled (pub/sub) and at every
 * advert renewal. Callers ask `enabled(name)`, which never goes to Redis.
 */
export class StorageFeatures implements FeatureFlags {
  readonly store: FeatureStore;
  private current = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;

  private constructor(private readonly options: StorageFeaturesOptions) {
    this.store = new FeatureStore(options.redis, options.keys);
  }

  /** Decides the first state, refuses unknown enabled flags, advertises and starts following changes. */
  static async open(options: StorageFeaturesOptions): Promise<StorageFeatures> {
    const features = new StorageFeatures(options);
    features.accept(await features.store.decide(), 'at start');
    // A Redis refusing writes for now does not stop the start: the next renewal advertises.
    await features.advertise().catch(() => undefined);
    features.unsubscribe = await options.bus.subscribe(features.store.keys.channel(), () => void features.refresh());
    features.timer = setInterval(() => void features.renew(), options.refreshMs ?? FEATURE_REFRESH_MS);
    features.timer.unref();
    return features;
  }

  enabled(name: FeatureName): boolean {
    return this.current.has(name);
  }

  /** The enabled flags as last read. */
  list(): string[] {
    return [...this.current];
  }

  /** Reads the enabled flags again. */
  async refresh(): Promise<void> {
    try {
      this.accept(await this.store.enabled(), 'later');
    } catch (error) {
      if (error instanceof UnknownFeatureError) this.options.onUnknown?.(error);
      // Redis unreachable: the next renewal reads again.
    }
  }

  private accept(names: string[], when: 'at start' | 'later'): void {
    const unknown = names.filter((name) => !isKnownFeature(name));
    if (unknown.length > 0 && when === 'at start') throw new UnknownFeatureError(unknown);
    this.current = new Set(names.filter(isKnownFeature));
    if (unknown.length > 0) throw new UnknownFeatureError(unknown);
  }

  private async advertise(): Promise<void> {
    const { id, kind } = this.options;
    const ttl = (this.options.refreshMs ?? FEATURE_REFRESH_MS) * 3 || ADVERT_TTL_MS;
    await this.store.advertise({
      id,
      kind,
      version: VERSION,
      features: [...KNOWN_FEATURES],
      expires_at: Date.now() + ttl,
    });
  }

  private async renew(): Promise<void> {
    await this.advertise().catch(() => undefined);
    await this.refresh();
  }

  /** Tells every process to re-read the flags (after enabling); this one has read them on return. */
  async announce(): Promise<void> {
    await this.options.bus.publish(this.store.keys.channel(), 'changed');
    await this.refresh();
  }

  /** Stops following and withdraws the advert (a stopped process no longer holds a flag back). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.unsubscribe?.().catch(() => undefined);
    await this.store.withdraw(this.options.id).catch(() => undefined);
  }
}
