import { fail } from '../errors.js';
import { isKnownFeature, KNOWN_FEATURES, STORAGE_FEATURES } from './feature-registry.js';
import type { FeatureAdvert, FeatureStore } from './feature-store.js';

/** One flag as an operator sees it. */
export interface FeatureState {
  name: string;
  description: string;
  introduced_in: string;
  enabled: boolean;
  /** The live processes that do not support it (enabling it is refused while there are any). */
  unsupported_by: Pick<FeatureAdvert, 'id' | 'kind' | 'version'>[];
}

export interface FeatureListing {
  features: FeatureState[];
  /** Enabled flags this release does not know (a newer release enabled them). */
  unknown_enabled: string[];
  processes: Omit<FeatureAdvert, 'expires_at'>[];
}

const describe = ({ id, kind, version }: FeatureAdvert) => ({ id, kind, version });

/** What `ferrum admin features` and the admin API show and do: list, and enable after the live processes' check. */
export class FeatureAdmin {
  constructor(
    private readonly store: FeatureStore,
    /** Tells every process to re-read the flags. */
    private readonly announce: () => Promise<void>,
  ) {}

  async list(): Promise<FeatureListing> {
    const [enabled, live] = await Promise.all([this.store.enabled(), this.store.live()]);
    const features = STORAGE_FEATURES.map((feature) => ({
      name: feature.name,
      description: feature.description,
      introduced_in: feature.introducedIn,
      enabled: enabled.includes(feature.name),
      unsupported_by: live.filter((advert) => !advert.features.includes(feature.name)).map(describe),
    }));
    const processes = live.map(({ id, kind, version, features: names }) => ({ id, kind, version, features: names }));
    return { features, unknown_enabled: enabled.filter((name) => !isKnownFeature(name)), processes };
  }

  /** Enables one flag, or every known one (`all`); 404 for an unknown name, 409 naming the processes that lack it. */
  async enable(which: string | 'all'): Promise<{ enabled: string[] }> {
    if (which !== 'all' && !isKnownFeature(which)) throw fail('feature_unknown', which, KNOWN_FEATURES.join(', '));
    const names = which === 'all' ? [...KNOWN_FEATURES] : [which];
    const outcome = await this.store.enable(names);
    if ('lacking' in outcome) {
      const lacking = outcome.lacking
        .map((advert) => `${advert.id} (${advert.kind}, version ${advert.version || 'unknown'})`)
        .join(', ');
      const missing = names.filter((name) => outcome.lacking.some((advert) => !advert.features.includes(name)));
      throw fail('feature_unsupported', missing.join(', '), lacking);
    }
    if (outcome.enabled > 0) await this.announce();
    return { enabled: await this.store.enabled() };
  }
}
