import type { RedisClient } from '../../../core/redis.js';
import type { WorkerKeys } from '../../keys.js';

/** "busybox" and "busybox:latest" are one image; a digest or tag stays as given. */
export function imageRef(image: string): string {
  const lastPart = image.slice(image.lastIndexOf('/') + 1);
  return image.includes('@') || lastPart.includes(':') ? image : `${image}:latest`;
}

/** The image the engine holds under a reference. */
export interface EngineImage {
  /** The engine's id ("sha256:…"). */
  id: string;
  /** The reference is the id, a prefix of it or `sha256:` and (part of) it: no registry to pull it from. */
  byId: boolean;
}

/** Whether `image` named the image of id `id` by that id (whole, a prefix, with or without `sha256:`). */
export function namesImageById(image: string, id: string): boolean {
  const hex = image.replace(/^sha256:/, '');
  return /^[0-9a-f]+$/.test(hex) && id.replace(/^sha256:/, '').startsWith(hex);
}

/** What a runner must do before it runs an image for a project. */
export type ImageDecision = { action: 'run' } | { action: 'pull' } | { action: 'refuse'; reason: string };

/**
 * Which projects proved access to an image pulled with registry credentials, kept by the
 * reference pulled and by the engine's id of the image, so that naming it another way (its id,
 * a prefix of it, a digest, another tag) finds the same record. An image on the engine is no
 * proof: a project with credentials for its registry pulls again with its own (a proof lasts
 * `proofMs`); a project without any may not run an image that some other project pulled
 * privately, and nobody pulls by id, so an id names a private image only for its pullers.
 */
export class PrivateImages {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
    private readonly proofMs: number,
  ) {}

  /** `imageId`: the engine's id of what the pull brought. */
  async recordPull(image: string, projectId: string, imageId: string | null, nowMs = Date.now()): Promise<void> {
    for (const key of this.keysOf(image, imageId)) await this.redis.hset(key, projectId, String(nowMs));
  }

  /** `onEngine`: what the engine holds under `image` now (null: nothing, it must be pulled). */
  async decide(
    image: string,
    projectId: string,
    hasCredentials: boolean,
    onEngine: EngineImage | null,
    nowMs = Date.now(),
  ): Promise<ImageDecision> {
    const pulls = await this.pullsOf(image, onEngine?.id ?? null);
    const own = pulls.get(projectId) ?? 0;
    if (hasCredentials && !onEngine?.byId) return nowMs - own < this.proofMs ? { action: 'run' } : { action: 'pull' };
    if (pulls.size === 0 || own > 0) return { action: 'run' };
    return {
      action: 'refuse',
      reason: `Image ${image} is private to the projects that pulled it with registry credentials; store this project's credentials for its registry and name it by name to use it`,
    };
  }

  private keysOf(image: string, imageId: string | null): string[] {
    const byName = this.keys.privateImage(imageRef(image));
    return imageId ? [byName, this.keys.privateImage(imageId)] : [byName];
  }

  /**
   * Each project's latest pull with credentials, under the reference or the id. Pulls recorded
   * under the name only (before ids were kept) are copied to the id the name now stands for:
   * that makes the image private to more projects' proofs, never less.
   */
  private async pullsOf(image: string, imageId: string | null): Promise<Map<string, number>> {
    const [byName, byId] = this.keysOf(image, imageId);
    const named = await this.redis.hgetall(byName!);
    const pulls = new Map(Object.entries(named).map(([project, at]) => [project, Number(at)]));
    if (!byId) return pulls;
    const identified = await this.redis.hgetall(byId);
    const missing = Object.entries(named).filter(([project]) => identified[project] === undefined);
    if (missing.length > 0) await this.redis.hset(byId, Object.fromEntries(missing));
    for (const [project, at] of Object.entries(identified))
      pulls.set(project, Math.max(pulls.get(project) ?? 0, Number(at)));
    return pulls;
  }
}
