import type { Logger } from 'pino';
import { StorageFeatures } from '../src/core/features/storage-features.js';
import type { RunnerContext } from './runner-context.js';

/**
 * A direct runner's storage feature flags, opened before its first heartbeat writes anything:
 * decided on a first start, a start refused on an enabled flag this release does not know, and
 * the runner's advert kept under its instance id.
 */
export function openRunnerFeatures(ctx: RunnerContext, runnerId: string, log: Logger): Promise<StorageFeatures> {
  return StorageFeatures.open({
    redis: ctx.redis,
    keys: ctx.keys,
    bus: ctx.bus,
    id: runnerId,
    kind: 'runner',
    onUnknown: (error) => log.error({ err: error }, 'unknown storage feature flag enabled'),
  });
}
