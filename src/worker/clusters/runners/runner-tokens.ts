import type { RedisClient } from '../../../core/redis.js';
import { createHash } from 'node:crypto';
import { newObjectId, newSecret } from '../../../core/ids.js';
import type { WorkerKeys } from '../../keys.js';

/** Marks runner tokens, so that other tokens never cost a lookup here. */
export const RUNNER_TOKEN_PREFIX = 'runner_';

/** A runner token as listed: never its secret. */
export interface RunnerTokenInfo {
  id: string;
  created_at: string;
  /** Set for the token of one launched instance: it may serve only as that instance. */
  instance_id?: string;
}

/** What a runner token grants: the runner API for one cluster's tasks (and one instance, if bound). */
export interface RunnerGrant {
  cluster: string;
  token_id: string;
  instance_id?: string;
}

function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

interface StoredToken extends RunnerTokenInfo {
  digest: string;
}

/** Cluster runner tokens: stored hashed, listed without secrets, revoked at once. */
export class RunnerTokens {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
  ) {}

  /** A new token; its secret is in the answer and nowhere else. */
  async create(cluster: string, instanceId?: string): Promise<RunnerTokenInfo & { token: string }> {
    const token = `${RUNNER_TOKEN_PREFIX}${newSecret()}`;
    const info: RunnerTokenInfo = { id: newObjectId(), created_at: new Date().toISOString() };
    if (instanceId) info.instance_id = instanceId;
    const stored: StoredToken = { ...info, digest: digestOf(token) };
    const grant: RunnerGrant = { cluster, token_id: info.id, ...(instanceId ? { instance_id: instanceId } : {}) };
    // Listed first, usable second (the two keys sit on different cluster slots): a token is never
    // usable without being listed, so it can always be revoked.
    await this.redis.hset(this.keys.runnerTokens(cluster), info.id, JSON.stringify(stored));
    await this.redis.set(this.keys.runnerToken(stored.digest), JSON.stringify(grant));
    return { ...info, token };
  }

  /** How many tokens the cluster has (per-instance ones included). */
  async count(cluster: string): Promise<number> {
    return this.redis.hlen(this.keys.runnerTokens(cluster));
  }

  async list(cluster: string): Promise<RunnerTokenInfo[]> {
    const all = await this.redis.hvals(this.keys.runnerTokens(cluster));
    return all
      .map((json) => {
        const { digest: _digest, ...info } = JSON.parse(json) as StoredToken;
        return info;
      })
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  /** Revokes a token; false when the cluster has no such token. */
  async revoke(cluster: string, tokenId: string): Promise<boolean> {
    const json = await this.redis.hget(this.keys.runnerTokens(cluster), tokenId);
    if (!json) return false;
    const { digest } = JSON.parse(json) as StoredToken;
    // Unusable first, unlisted second: a revoked token stops working before it leaves the list.
    await this.redis.del(this.keys.runnerToken(digest));
    await this.redis.hdel(this.keys.runnerTokens(cluster), tokenId);
    return true;
  }

  /** Revokes the tokens bound to one instance (it was terminated). */
  async revokeInstance(cluster: string, instanceId: string): Promise<number> {
    const bound = (await this.list(cluster)).filter((info) => info.instance_id === instanceId);
    for (const info of bound) await this.revoke(cluster, info.id);
    return bound.length;
  }

  /** Revokes every token of a cluster (it was deleted). */
  async revokeAll(cluster: string): Promise<void> {
    for (const info of await this.list(cluster)) await this.revoke(cluster, info.id);
  }

  async find(token: string): Promise<RunnerGrant | null> {
    if (!token.startsWith(RUNNER_TOKEN_PREFIX)) return null;
    const json = await this.redis.get(this.keys.runnerToken(digestOf(token)));
    return json ? (JSON.parse(json) as RunnerGrant) : null;
  }
}
