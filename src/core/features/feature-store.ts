import { loadLua } from '../lua.js';
import type { KeySpace, RedisClient } from '../redis.js';
import { scanKeys } from '../scan.js';
import { KNOWN_FEATURES } from './feature-registry.js';

const featureScript = (name: string) => loadLua(new URL('./lua/', import.meta.url).href, name);
const scripts = {
  decide: featureScript('decide-features'),
  enable: featureScript('enable-features'),
};

/** Which kind of process advertises: gateway runners advertise through the controller they reach. */
export type ProcessKind = 'controller' | 'runner' | 'gateway-runner';

/** What one live process says it understands, kept until `expires_at` (ms) unless renewed. */
export interface FeatureAdvert {
  id: string;
  kind: ProcessKind;
  version: string;
  features: string[];
  expires_at: number;
}

/** The flags' keys, all under one hash tag so that enabling checks the adverts atomically. */
export class FeatureKeys {
  constructor(private readonly keys: KeySpace) {}
  /** The flags' first state was decided (its value: how, and when). */
  decided = () => this.keys.of('{features}', 'decided');
  /** The set of enabled flags. */
  enabled = () => this.keys.of('{features}', 'enabled');
  /** Hash: process id → its advert (JSON). */
  processes = () => this.keys.of('{features}', 'processes');
  /** The pub/sub channel that tells every process a flag was enabled. */
  channel = () => this.keys.of('features', 'changed');
  /** Every key of the installation, for telling a fresh store from one with data. */
  anyKey = () => `${this.keys.of('')}*`;
  /** Short-lived keys of probes (readiness, metrics) that are no data. */
  probes = () => [this.keys.of('ready-probe'), this.keys.of('metrics-probe')];
}

/** Keys scanned per step while looking for earlier data. */
const SCAN_COUNT = 1000;

/** The flags in Redis: their first state, the enabled set, and the live processes' adverts. */
export class FeatureStore {
  readonly keys: FeatureKeys;

  constructor(
    private readonly redis: RedisClient,
    keys: KeySpace,
  ) {
    this.keys = new FeatureKeys(keys);
  }

  /**
   * Decides the first state once (every later call reads it): every known flag on a store
   * holding no Ferrum key, none on one an earlier release wrote. Returns the enabled flags.
   */
  async decide(now = Date.now()): Promise<string[]> {
    // Decided already: a read only, which a Redis refusing writes (full, a replica) still answers.
    if ((await this.redis.exists(this.keys.decided())) === 1) return this.enabled();
    const fresh = !(await this.holdsData());
    const args = [fresh ? '1' : '0', String(now), ...KNOWN_FEATURES];
    return scripts.decide.run<string[]>(this.redis, [this.keys.decided(), this.keys.enabled()], args);
  }

  /** Whether any key of the installation but the flags' own exists. */
  private async holdsData(): Promise<boolean> {
    const own = this.keys.decided().slice(0, -'decided'.length);
    const probes = this.keys.probes();
    for await (const batch of scanKeys(this.redis, this.keys.anyKey(), SCAN_COUNT)) {
      if (batch.some((key) => !key.startsWith(own) && !probes.includes(key))) return true;
    }
    return false;
  }

  enabled(): Promise<string[]> {
    return this.redis.smembers(this.keys.enabled());
  }

  async advertise(advert: FeatureAdvert): Promise<void> {
    await this.redis.hset(this.keys.processes(), advert.id, JSON.stringify(advert));
  }

  async withdraw(id: string): Promise<void> {
    await this.redis.hdel(this.keys.processes(), id);
  }

  /** The live processes' adverts, oldest first by id. */
  async live(now = Date.now()): Promise<FeatureAdvert[]> {
    const all = await this.redis.hvals(this.keys.processes());
    return all
      .map((json) => JSON.parse(json) as FeatureAdvert)
      .filter((advert) => advert.expires_at > now)
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Enables `names` (all or none) unless a live process lacks one: then those processes. */
  async enable(names: string[], now = Date.now()): Promise<{ enabled: number } | { lacking: FeatureAdvert[] }> {
    const [outcome, value] = await scripts.enable.run<[string, number | string]>(
      this.redis,
      [this.keys.enabled(), this.keys.processes()],
      [String(now), ...names],
    );
    if (outcome === 'lacking') return { lacking: JSON.parse(String(value)) as FeatureAdvert[] };
    return { enabled: Number(value) };
  }
}
