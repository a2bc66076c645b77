/**
 * The storage feature flags: every change to what Ferrum keeps in Redis (keys, fields, record
 * layouts, message formats) that a release before it could not read is one row here. A process
 * advertises the flags it knows; a flag is enabled (and the new layout written) only once every
 * live process supports it; until then the earlier layout is written and both are read.
 * A later change adds a row at the end; rows are never removed or renamed.
 */
export interface StorageFeature {
  /** Lowercase words joined by `_`; what `ferrum admin features enable <name>` takes. */
  readonly name: string;
  /** What changes in Redis once the flag is enabled, and what releases without it would do. */
  readonly description: string;
  /** The release that introduced the flag (package.json's version after it). */
  readonly introducedIn: string;
}

export const STORAGE_FEATURES = [
  {
    name: 'plain_messages',
    description:
      "Plain messages (no delay, no expiration of their own) keep no expiry entry: a ready one expires by its score plus the queue record's plain_expiration_ms, a reserved one carries its expiry in its rid field (<rid>@<ms>). Releases before it drop such messages as expired.",
    introducedIn: '0.2.0',
  },
  {
    name: 'route_index',
    description:
      "Each project keeps an index of its routes (<app><path>, under {fn}), built from its apps' routes when first needed; a new route is claimed in it under the routes quota in one step, so racing creations cannot pass the quota. Releases before it neither add to it nor take deleted routes out of it.",
    introducedIn: '0.2.0',
  },
] as const satisfies readonly StorageFeature[];

export type FeatureName = (typeof STORAGE_FEATURES)[number]['name'];

/** Every flag this release knows, in the registry's order. */
export const KNOWN_FEATURES: readonly FeatureName[] = STORAGE_FEATURES.map((feature) => feature.name);

export function isKnownFeature(name: string): name is FeatureName {
  return (KNOWN_FEATURES as readonly string[]).includes(name);
}

export function featureOf(name: FeatureName): StorageFeature {
  return STORAGE_FEATURES.find((feature) => feature.name === name)!;
}

/**
 * The header a gateway runner's heartbeat names the flags it knows in (comma-separated): a header,
 * not a body field, so that a controller of a release before flags (whose heartbeat body allows no
 * other field) still takes the heartbeat.
 */
export const FEATURES_HEADER = 'ferrum-storage-features';

/** At most this many names are taken from one FEATURES_HEADER. */
const MOST_ADVERTISED = 100;

/** The flag names in a FEATURES_HEADER value (none when absent: a runner of a release before flags). */
export function advertisedFeatures(header: string | string[] | undefined): string[] {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  const names = value.split(',').map((name) => name.trim());
  return [...new Set(names.filter((name) => /^[a-z0-9_]{1,64}$/.test(name)))].slice(0, MOST_ADVERTISED);
}
