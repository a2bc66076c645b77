import type { Config } from '../../src/core/config.js';
import { HttpError } from '../../src/core/errors.js';
import { FeatureAdmin, type FeatureListing } from '../../src/core/features/feature-admin.js';
import { FeatureStore } from '../../src/core/features/feature-store.js';
import { withAdminRedis } from './admin-redis.js';

/** A refusal of `ferrum admin features enable`: printed, and the command exits non-zero. */
export class FeatureCommandError extends Error {}

async function withFeatureAdmin<T>(config: Config, work: (admin: FeatureAdmin) => Promise<T>): Promise<T> {
  return withAdminRedis(config, 'admin-features', async (redis, keys) => {
    const store = new FeatureStore(redis, keys);
    const announce = async () => void (await redis.publish(store.keys.channel(), 'changed'));
    try {
      return await work(new FeatureAdmin(store, announce));
    } catch (error) {
      if (error instanceof HttpError) throw new FeatureCommandError(error.message);
      throw error;
    }
  });
}

/** `ferrum admin features list`: every flag this release knows, whether enabled, and the live processes. */
export async function featureListing(config: Config): Promise<string[]> {
  return withFeatureAdmin(config, async (admin) => listingLines(await admin.list()));
}

/** `ferrum admin features enable <name>|--all`; refused (FeatureCommandError) while a live process lacks it. */
export async function enableFeature(config: Config, which: string): Promise<string[]> {
  return withFeatureAdmin(config, async (admin) => {
    const { enabled } = await admin.enable(which);
    return [`Enabled: ${which === 'all' ? 'every known flag' : which}.`, `Enabled flags: ${enabled.sort().join(', ')}`];
  });
}

function listingLines(listing: FeatureListing): string[] {
  const lines = ['Storage feature flags:'];
  for (const feature of listing.features) {
    const state = feature.enabled ? 'enabled' : 'disabled';
    lines.push(`  ${feature.name}  ${state}  (since ${feature.introduced_in})`);
    lines.push(`      ${feature.description}`);
    const lacking = feature.unsupported_by.map((p) => `${p.id} (${p.kind} ${p.version || 'unknown'})`);
    if (!feature.enabled && lacking.length > 0) lines.push(`      not supported by: ${lacking.join(', ')}`);
  }
  if (listing.unknown_enabled.length > 0)
    lines.push(`Enabled but unknown to this release: ${listing.unknown_enabled.join(', ')}`);
  lines.push(`Live processes (${listing.processes.length}):`);
  for (const advert of listing.processes) {
    const names = advert.features.length > 0 ? advert.features.join(', ') : 'none';
    lines.push(`  ${advert.id}  ${advert.kind}  ${advert.version || 'unknown'}  supports: ${names}`);
  }
  return lines;
}
