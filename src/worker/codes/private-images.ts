import type { RedisClient } from '../../core/redis.js';
import type { WorkerKeys } from '../keys.js';

/** "busybox" and "busybox:latest" are one image; a digest or tag stays as given. */
export function imageRef(image: string): string {
  const lastPart = image.slice(image.lastIndexOf('/') + 1);
  return image.includes('@') || lastPart.includes(':') ? image : `${image}:latest`;
}

/** What a runner must do before it runs an image for a project. */
export type ImageDecision = { action: 'run' } | { action: 'pull' } | { action: 'refuse'; reason: string };

/**
 * Which projects proved access to an image pulled with registry credentials. An image on the
 * engine is no proof: a project with credentials for its registry pulls again with its own
 * (a proof lasts `proofMs`); a project without any may not run an image that some other
 * project pulled privately.
 */
export class PrivateImages {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
    private readonly proofMs: number,
  ) {}

  async recordPull(image: string, projectId: string, nowMs = Date.now()): Promise<void> {
    await this.redis.hset(this.keys.privateImage(imageRef(image)), projectId, String(nowMs));
  }

  async decide(image: string, projectId: string, hasCredentials: boolean, nowMs = Date.now()): Promise<ImageDecision> {
    const pulls = await this.redis.hgetall(this.keys.privateImage(imageRef(image)));
    const own = Number(pulls[projectId] ?? 0);
    if (hasCredentials) return nowMs - own < this.proofMs ? { action: 'run' } : { action: 'pull' };
    if (Object.keys(pulls).length === 0 || own > 0) return { action: 'run' };
    return {
      action: 'refuse',
      reason: `Image ${image} is private to the projects that pulled it with registry credentials; store this project's credentials for its registry to use it`,
    };
  }
}
