import type { RedisClient } from '../core/redis.js';
import type { ProjectStore } from './projects.js';
import { DIGEST_PREFIX, type IdentityKeys } from './scripts.js';
import { tokenDigest, type TokenStore } from './tokens.js';

/** How many index entries one migration step moves (each step is one short MULTI). */
const MIGRATION_BATCH = 200;

/** Moves what earlier versions wrote to the current layout; run at start, in bounded batches. */
export class IdentityMigrations {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: IdentityKeys,
    private readonly tokens: TokenStore,
    private readonly projects: ProjectStore,
  ) {}

  /**
   * Moves every token of the earlier {auth} secrets index (digests, or secrets in the clear) to
   * its own key by digest. Returns how many were moved.
   */
  async hashStoredSecrets(): Promise<number> {
    let moved = 0;
    let cursor = '0';
    do {
      // HSCAN returns every field present throughout, however many are removed meanwhile.
      const [next, flat] = await this.redis.hscan(this.keys.auth('secrets'), cursor, 'COUNT', MIGRATION_BATCH);
      cursor = next;
      for (let i = 0; i < flat.length; i += 2) {
        const field = flat[i] as string;
        const digest = field.startsWith(DIGEST_PREFIX) ? field : tokenDigest(field);
        await this.tokens.moveIndexedToken(field, digest, flat[i + 1] as string);
        moved += 1;
      }
    } while (cursor !== '0');
    return moved;
  }

  /**
   * Moves projects an earlier version kept under {auth} to their own keys, a bounded batch of
   * the project index per step. Returns how many were moved.
   */
  async moveEarlierProjects(): Promise<number> {
    let moved = 0;
    let after: string | undefined;
    for (;;) {
      const ids = await this.projects.listProjectIds(after, MIGRATION_BATCH);
      if (ids.length === 0) return moved;
      const earlier = await Promise.all(ids.map((id) => this.redis.exists(this.keys.auth('project', id))));
      for (const [i, id] of ids.entries()) if (earlier[i] === 1 && (await this.moveEarlierProject(id))) moved += 1;
      after = ids[ids.length - 1];
    }
  }

  private async moveEarlierProject(id: string): Promise<boolean> {
    const [hash, shared] = await Promise.all([
      this.redis.hgetall(this.keys.auth('project', id)),
      this.redis.smembers(this.keys.auth('project', id, 'shared')),
    ]);
    if (hash.id && (await this.redis.hsetnx(this.keys.project(id), 'id', id)) === 1) {
      await this.redis.hset(this.keys.project(id), hash);
      if (shared.length > 0) await this.redis.sadd(this.keys.project(id, 'shared'), ...shared);
    }
    await this.redis.del(this.keys.auth('project', id), this.keys.auth('project', id, 'shared'));
    return Boolean(hash.id);
  }
}
