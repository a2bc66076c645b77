import { fail } from '../core/errors.js';
import { newObjectId } from '../core/ids.js';
import type { RedisClient } from '../core/redis.js';
import { hashPassword } from './password.js';
import { scripts, type IdentityKeys } from './scripts.js';
import type { TokenStore } from './tokens.js';
import type { User, UserStatus } from './types.js';
import { Removals } from '../core/removals.js';

export interface NewUser {
  email: string;
  password: string;
  admin?: boolean;
  id?: string;
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Users in Redis (under {auth}, e-mails unique). Knows nothing of HTTP or of who is allowed what. */
export class UserStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: IdentityKeys,
    /** A deleted user's tokens go with it. */
    private readonly tokens: TokenStore,
  ) {}

  async countUsers(): Promise<number> {
    return this.redis.zcard(this.keys.auth('users'));
  }

  async createUser(input: NewUser): Promise<User> {
    const now = Date.now();
    const user: User = {
      id: input.id ?? newObjectId(now),
      email: input.email.trim(),
      passwordHash: await hashPassword(input.password),
      status: 'active',
      admin: input.admin ?? false,
      planWorker: 'default',
      flags: {},
      createdAt: now,
      updatedAt: now,
    };
    const created = await scripts.createUser.run<number>(
      this.redis,
      [this.keys.auth('emails'), this.keys.auth('users'), this.keys.auth('user', user.id)],
      [normalizeEmail(user.email), user.id, ...Object.entries(userToHash(user)).flat()],
    );
    if (created !== 1) throw fail('email_taken', user.email);
    return user;
  }

  async getUser(id: string): Promise<User | null> {
    const hash = await this.redis.hgetall(this.keys.auth('user', id));
    return hash.id ? userFromHash(hash) : null;
  }

  async findUser(idOrEmail: string): Promise<User | null> {
    const byId = await this.getUser(idOrEmail);
    if (byId) return byId;
    return this.findUserByEmail(idOrEmail);
  }

  async findUserByEmail(email: string): Promise<User | null> {
    const id = await this.redis.hget(this.keys.auth('emails'), normalizeEmail(email));
    return id ? this.getUser(id) : null;
  }

  /** Users in id order after `previous` (exclusive). */
  async listUsers(previous: string | undefined, perPage: number): Promise<User[]> {
    const start = previous ? `(${previous}` : '-';
    const ids = await this.redis.zrangebylex(this.keys.auth('users'), start, '+', 'LIMIT', 0, perPage);
    const users = await Promise.all(ids.map((id) => this.getUser(id)));
    return users.filter((user): user is User => user !== null);
  }

  async updateUser(user: User, changes: { email?: string; password?: string; status?: UserStatus }): Promise<User> {
    const now = Date.now();
    if (changes.email !== undefined) {
      const email = changes.email.trim();
      const args = [normalizeEmail(user.email), normalizeEmail(email), user.id, email, String(now)];
      const moved = await scripts.changeEmail.run<number>(
        this.redis,
        [this.keys.auth('emails'), this.keys.auth('user', user.id)],
        args,
      );
      if (moved !== 1) throw fail('email_taken', email);
    }
    const fields: Record<string, string> = { updated_at: String(now) };
    if (changes.password !== undefined) fields.password_hash = await hashPassword(changes.password);
    if (changes.status !== undefined) fields.status = changes.status;
    await this.redis.hset(this.keys.auth('user', user.id), fields);
    return (await this.getUser(user.id)) ?? user;
  }

  /** Deletes the user and its tokens; returns the digests of the secrets that stopped working. */
  async deleteUser(user: User): Promise<string[]> {
    const tokens = await this.tokens.listTokens(user.id);
    const projectIds = await this.redis.smembers(this.keys.auth('user', user.id, 'projects'));
    const removals = new Removals();
    removals.del(this.keys.auth('user', user.id), this.keys.auth('user', user.id, 'tokens'));
    removals.zrem(this.keys.auth('users'), user.id);
    removals.hdel(this.keys.auth('emails'), normalizeEmail(user.email));
    for (const token of tokens) {
      removals.del(this.keys.auth('token', token.id));
      removals.hdel(this.keys.auth('secrets'), token.secretHash);
    }
    removals.del(this.keys.auth('user', user.id, 'projects'));
    await Promise.all(tokens.map((token) => this.redis.del(this.keys.tokenByDigest(token.secretHash))));
    await removals.run(this.redis);
    await Promise.all(projectIds.map((projectId) => this.redis.srem(this.keys.project(projectId, 'shared'), user.id)));
    return tokens.map((token) => token.secretHash);
  }
}

function userToHash(user: User): Record<string, string> {
  return {
    id: user.id,
    email: user.email,
    password_hash: user.passwordHash,
    status: user.status,
    admin: user.admin ? '1' : '0',
    plan_worker: user.planWorker,
    flags: JSON.stringify(user.flags),
    created_at: String(user.createdAt),
    updated_at: String(user.updatedAt),
  };
}

function userFromHash(hash: Record<string, string>): User {
  return {
    id: hash.id ?? '',
    email: hash.email ?? '',
    passwordHash: hash.password_hash ?? '',
    status: (hash.status as UserStatus) ?? 'active',
    admin: hash.admin === '1',
    planWorker: hash.plan_worker ?? 'default',
    flags: JSON.parse(hash.flags ?? '{}') as Record<string, unknown>,
    createdAt: Number(hash.created_at),
    updatedAt: Number(hash.updated_at),
  };
}
