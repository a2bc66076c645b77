import { createHash } from 'node:crypto';
import { fail } from '../core/errors.js';
import { newObjectId, newSecret } from '../core/ids.js';
import type { RedisClient } from '../core/redis.js';
import { DIGEST_PREFIX, type IdentityKeys } from './scripts.js';
import type { Token, TokenType, User } from './types.js';
import { Removals } from '../core/removals.js';

export interface NewToken {
  userId: string;
  name: string;
  type: TokenType;
  admin: boolean;
  secret?: string;
}

/** A token as it is created: the only time its secret is known. */
export type CreatedToken = Token & { secret: string };

export function tokenDigest(secret: string): string {
  return DIGEST_PREFIX + createHash('sha256').update(secret).digest('hex');
}

/** The few characters of a secret a list may show so that people can tell their tokens apart. */
function hintOf(secret: string): string {
  return `${secret.slice(0, 4)}…`;
}

const SIGN_IN_TOKEN_NAME = 'dashboard sign-in';
const SIGN_IN_TOKENS_KEPT = 5;

/** Users' tokens in Redis: stored by their secret's digest, listed per user under {auth}. */
export class TokenStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: IdentityKeys,
  ) {}

  async createToken(input: NewToken): Promise<CreatedToken> {
    const now = Date.now();
    const secret = input.secret ?? newSecret(24);
    const token: CreatedToken = {
      id: newObjectId(now),
      secret,
      secretHash: tokenDigest(secret),
      hint: hintOf(secret),
      userId: input.userId,
      type: input.type,
      name: input.name,
      admin: input.admin,
      createdAt: now,
    };
    const hash = tokenToHash(token);
    // Claimed and usable in one step; listed (under {auth}) right after. A crash between the two
    // leaves a token its owner cannot see, never a listed one that does not work.
    const claimed = await this.redis.set(this.keys.tokenByDigest(token.secretHash), JSON.stringify(hash), 'NX');
    if (claimed !== 'OK') throw fail('token_value_taken');
    await this.redis
      .multi()
      .hset(this.keys.auth('token', token.id), hash)
      .sadd(this.keys.auth('user', token.userId, 'tokens'), token.id)
      .exec();
    return token;
  }

  /**
   * A fresh token for one dashboard sign-in. The user's oldest sign-in tokens beyond the last
   * few are deleted, so signing in again and again does not pile tokens up.
   */
  async createSignInToken(user: User): Promise<{ token: CreatedToken; revoked: string[] }> {
    const token = await this.createToken({
      userId: user.id,
      name: SIGN_IN_TOKEN_NAME,
      type: 'standard',
      admin: user.admin,
    });
    const signIns = (await this.listTokens(user.id)).filter((each) => each.name === SIGN_IN_TOKEN_NAME);
    const old = signIns.slice(0, Math.max(0, signIns.length - SIGN_IN_TOKENS_KEPT));
    for (const each of old) await this.deleteToken(each);
    return { token, revoked: old.map((each) => each.secretHash) };
  }

  async getToken(id: string): Promise<Token | null> {
    const hash = await this.redis.hgetall(this.keys.auth('token', id));
    return hash.id ? tokenFromHash(hash) : null;
  }

  async findTokenBySecret(secret: string): Promise<Token | null> {
    const digest = tokenDigest(secret);
    const json = await this.redis.get(this.keys.tokenByDigest(digest));
    if (json) return tokenFromHash(JSON.parse(json) as Record<string, string>);
    // Written by an earlier version (or a controller not yet upgraded): the {auth} secrets index,
    // by digest or in the clear. Moved to the new layout on first use.
    const [hashedId, clearId] = await this.redis.hmget(this.keys.auth('secrets'), digest, secret);
    if (hashedId) return this.moveIndexedToken(digest, digest, hashedId);
    if (clearId) return this.moveIndexedToken(secret, digest, clearId);
    return null;
  }

  /**
   * Writes an earlier version's token (indexed under `field`: its digest, or its secret in the
   * clear) by its digest, then drops the old index entry.
   */
  async moveIndexedToken(field: string, digest: string, tokenId: string): Promise<Token | null> {
    const tokenKey = this.keys.auth('token', tokenId);
    const hash = await this.redis.hgetall(tokenKey);
    let token: Token | null = null;
    if (hash.id) {
      const { secret: _secret, ...kept } = hash;
      const secret = field === digest ? undefined : field;
      const stored = { ...kept, secret_hash: digest, ...(secret ? { hint: hintOf(secret) } : {}) };
      await this.redis.set(this.keys.tokenByDigest(digest), JSON.stringify(stored), 'NX');
      await this.redis.multi().hset(tokenKey, stored).hdel(tokenKey, 'secret').exec();
      token = tokenFromHash(stored);
    }
    await this.redis.hdel(this.keys.auth('secrets'), field);
    return token;
  }

  /** How many tokens the user has (sign-in tokens included). */
  async countTokens(userId: string): Promise<number> {
    return this.redis.scard(this.keys.auth('user', userId, 'tokens'));
  }

  async listTokens(userId: string): Promise<Token[]> {
    const ids = await this.redis.smembers(this.keys.auth('user', userId, 'tokens'));
    const tokens = await Promise.all(ids.map((id) => this.getToken(id)));
    return tokens.filter((token): token is Token => token !== null).sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Stops the token at once (its key by digest goes first), then unlists it. */
  async deleteToken(token: Token): Promise<void> {
    await this.redis.del(this.keys.tokenByDigest(token.secretHash));
    await new Removals()
      .del(this.keys.auth('token', token.id))
      .hdel(this.keys.auth('secrets'), token.secretHash)
      .srem(this.keys.auth('user', token.userId, 'tokens'), token.id)
      .run(this.redis);
  }
}

function tokenToHash(token: Token): Record<string, string> {
  return {
    id: token.id,
    secret_hash: token.secretHash,
    hint: token.hint,
    user_id: token.userId,
    type: token.type,
    name: token.name,
    admin: token.admin ? '1' : '0',
    created_at: String(token.createdAt),
  };
}

function tokenFromHash(hash: Record<string, string>): Token {
  return {
    id: hash.id ?? '',
    secretHash: hash.secret_hash ?? (hash.secret ? tokenDigest(hash.secret) : ''),
    hint: hash.hint ?? (hash.secret ? hintOf(hash.secret) : ''),
    userId: hash.user_id ?? '',
    type: (hash.type as TokenType) ?? 'standard',
    name: hash.name ?? '',
    admin: hash.admin === '1',
    createdAt: Number(hash.created_at),
  };
}
