import { createHash } from 'node:crypto';
import { conflict, notFound } from '../core/errors.js';
import { newObjectId, newSecret } from '../core/ids.js';
import { loadLua } from '../core/lua.js';
import type { KeySpace, RedisClient } from '../core/redis.js';
import { hashPassword } from './password.js';
import type { Project, ProjectStatus, Token, TokenType, User, UserStatus } from './types.js';

const createUserScript = loadLua(import.meta.url, 'create-user');
const changeEmailScript = loadLua(import.meta.url, 'change-email');

// All identity keys share the {auth} hash tag so multi-key scripts work on Redis Cluster.
const TAG = '{auth}';

export interface NewUser {
  email: string;
  password: string;
  admin?: boolean;
  id?: string;
}

export interface NewToken {
  userId: string;
  name: string;
  type: TokenType;
  admin: boolean;
  secret?: string;
}

export interface NewProject {
  userId: string;
  name: string;
  id?: string;
  maxSchedules?: number;
}

const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Secrets are stored only as this digest (the `secrets` index field and the token's `secret_hash`). */
const DIGEST_PREFIX = 'sha256:';

export function tokenDigest(secret: string): string {
  return DIGEST_PREFIX + createHash('sha256').update(secret).digest('hex');
}

/** The few characters of a secret a list may show so that people can tell their tokens apart. */
function hintOf(secret: string): string {
  return `${secret.slice(0, 4)}…`;
}

/** A token as it is created: the only time its secret is known. */
export type CreatedToken = Token & { secret: string };

const SIGN_IN_TOKEN_NAME = 'dashboard sign-in';
const SIGN_IN_TOKENS_KEPT = 5;

/** How many index entries one migration step moves (each step is one short MULTI). */
const MIGRATION_BATCH = 200;

/** Users, tokens and projects in Redis. Knows nothing of HTTP or of who is allowed what. */
export class IdentityStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {}

  private key(...parts: string[]): string {
    return this.keys.of(TAG, ...parts);
  }

  // Users

  async countUsers(): Promise<number> {
    return this.redis.zcard(this.key('users'));
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
    const created = await createUserScript.run<number>(
      this.redis,
      [this.key('emails'), this.key('users'), this.key('user', user.id)],
      [normalizeEmail(user.email), user.id, ...Object.entries(userToHash(user)).flat()],
    );
    if (created !== 1) throw conflict(`email ${user.email} is already taken`);
    return user;
  }

  async getUser(id: string): Promise<User | null> {
    const hash = await this.redis.hgetall(this.key('user', id));
    return hash.id ? userFromHash(hash) : null;
  }

  async findUser(idOrEmail: string): Promise<User | null> {
    const byId = await this.getUser(idOrEmail);
    if (byId) return byId;
    return this.findUserByEmail(idOrEmail);
  }

  async findUserByEmail(email: string): Promise<User | null> {
    const id = await this.redis.hget(this.key('emails'), normalizeEmail(email));
    return id ? this.getUser(id) : null;
  }

  async mustFindUser(idOrEmail: string): Promise<User> {
    const user = await this.findUser(idOrEmail);
    if (!user) throw notFound('User not found');
    return user;
  }

  /** Users in id order after `previous` (exclusive). */
  async listUsers(previous: string | undefined, perPage: number): Promise<User[]> {
    const start = previous ? `(${previous}` : '-';
    const ids = await this.redis.zrangebylex(this.key('users'), start, '+', 'LIMIT', 0, perPage);
    const users = await Promise.all(ids.map((id) => this.getUser(id)));
    return users.filter((user): user is User => user !== null);
  }

  async updateUser(user: User, changes: { email?: string; password?: string; status?: UserStatus }): Promise<User> {
    const now = Date.now();
    if (changes.email !== undefined) {
      const email = changes.email.trim();
      const args = [normalizeEmail(user.email), normalizeEmail(email), user.id, email, String(now)];
      const moved = await changeEmailScript.run<number>(
        this.redis,
        [this.key('emails'), this.key('user', user.id)],
        args,
      );
      if (moved !== 1) throw conflict(`email ${email} is already taken`);
    }
    const fields: Record<string, string> = { updated_at: String(now) };
    if (changes.password !== undefined) fields.password_hash = await hashPassword(changes.password);
    if (changes.status !== undefined) fields.status = changes.status;
    await this.redis.hset(this.key('user', user.id), fields);
    return (await this.getUser(user.id)) ?? user;
  }

  /** Deletes the user and its tokens; returns the digests of the secrets that stopped working. */
  async deleteUser(user: User): Promise<string[]> {
    const tokens = await this.listTokens(user.id);
    const projectIds = await this.redis.smembers(this.key('user', user.id, 'projects'));
    const multi = this.redis.multi();
    multi.del(this.key('user', user.id), this.key('user', user.id, 'tokens'));
    multi.zrem(this.key('users'), user.id);
    multi.hdel(this.key('emails'), normalizeEmail(user.email));
    for (const token of tokens) {
      multi.del(this.key('token', token.id));
      multi.hdel(this.key('secrets'), token.secretHash);
    }
    for (const projectId of projectIds) multi.srem(this.key('project', projectId, 'shared'), user.id);
    multi.del(this.key('user', user.id, 'projects'));
    await multi.exec();
    return tokens.map((token) => token.secretHash);
  }

  // Tokens

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
    const claimed = await this.redis.hsetnx(this.key('secrets'), token.secretHash, token.id);
    if (claimed !== 1) throw conflict('token value is already in use');
    await this.redis
      .multi()
      .hset(this.key('token', token.id), tokenToHash(token))
      .sadd(this.key('user', token.userId, 'tokens'), token.id)
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
    const hash = await this.redis.hgetall(this.key('token', id));
    return hash.id ? tokenFromHash(hash) : null;
  }

  async findTokenBySecret(secret: string): Promise<Token | null> {
    const id = await this.redis.hget(this.key('secrets'), tokenDigest(secret));
    if (id) return this.getToken(id);
    // A token stored in the clear by an earlier version (or by a controller not yet upgraded).
    const legacyId = await this.redis.hget(this.key('secrets'), secret);
    if (!legacyId) return null;
    await this.hashStoredSecret(secret, legacyId);
    return this.getToken(legacyId);
  }

  /** Replaces every secret still stored in the clear by its digest; run once at start, in batches. */
  async hashStoredSecrets(): Promise<number> {
    let cursor = '0';
    let moved = 0;
    do {
      const [next, flat] = await this.redis.hscan(this.key('secrets'), cursor, 'COUNT', MIGRATION_BATCH);
      cursor = next;
      for (let i = 0; i < flat.length; i += 2) {
        const field = flat[i] as string;
        if (field.startsWith(DIGEST_PREFIX)) continue;
        await this.hashStoredSecret(field, flat[i + 1] as string);
        moved += 1;
      }
    } while (cursor !== '0');
    return moved;
  }

  private async hashStoredSecret(secret: string, tokenId: string): Promise<void> {
    const digest = tokenDigest(secret);
    const tokenKey = this.key('token', tokenId);
    const multi = this.redis.multi().hset(this.key('secrets'), digest, tokenId).hdel(this.key('secrets'), secret);
    if ((await this.redis.exists(tokenKey)) === 1) {
      multi.hset(tokenKey, { secret_hash: digest, hint: hintOf(secret) }).hdel(tokenKey, 'secret');
    }
    await multi.exec();
  }

  async listTokens(userId: string): Promise<Token[]> {
    const ids = await this.redis.smembers(this.key('user', userId, 'tokens'));
    const tokens = await Promise.all(ids.map((id) => this.getToken(id)));
    return tokens.filter((token): token is Token => token !== null).sort((a, b) => a.id.localeCompare(b.id));
  }

  async deleteToken(token: Token): Promise<void> {
    await this.redis
      .multi()
      .del(this.key('token', token.id))
      .hdel(this.key('secrets'), token.secretHash)
      .srem(this.key('user', token.userId, 'tokens'), token.id)
      .exec();
  }

  // Projects

  async createProject(input: NewProject): Promise<Project> {
    const now = Date.now();
    const project: Project = {
      id: input.id ?? newObjectId(now),
      userId: input.userId,
      name: input.name,
      type: 'free',
      partner: null,
      status: 'active',
      maxSchedules: input.maxSchedules ?? 100,
      flags: {},
      sharedWith: [],
      createdAt: now,
      updatedAt: now,
    };
    const claimed = await this.redis.hsetnx(this.key('project', project.id), 'id', project.id);
    if (claimed !== 1) throw conflict(`project ${project.id} already exists`);
    await this.redis
      .multi()
      .hset(this.key('project', project.id), projectToHash(project))
      .sadd(this.key('user', project.userId, 'projects'), project.id)
      .zadd(this.key('projects'), 0, project.id)
      .exec();
    return project;
  }

  async getProject(id: string): Promise<Project | null> {
    const [hash, shared] = await Promise.all([
      this.redis.hgetall(this.key('project', id)),
      this.redis.smembers(this.key('project', id, 'shared')),
    ]);
    return hash.id && hash.user_id ? projectFromHash(hash, shared) : null;
  }

  async mustGetProject(id: string): Promise<Project> {
    const project = await this.getProject(id);
    if (!project) throw notFound('Project not found');
    return project;
  }

  /** Ids of every project, in id order, `count` at a time after `after` (exclusive). */
  async listProjectIds(after: string | undefined, count: number): Promise<string[]> {
    return this.redis.zrangebylex(this.key('projects'), after ? `(${after}` : '-', '+', 'LIMIT', 0, count);
  }

  /** The projects a user owns or that are shared with it, in id order. */
  async listProjectsOf(userId: string): Promise<Project[]> {
    const ids = (await this.redis.smembers(this.key('user', userId, 'projects'))).sort();
    const projects = await Promise.all(ids.map((id) => this.getProject(id)));
    return projects.filter((project): project is Project => project !== null);
  }

  async updateProject(
    project: Project,
    changes: { name?: string; status?: ProjectStatus; maxSchedules?: number },
  ): Promise<Project> {
    const fields: Record<string, string> = { updated_at: String(Date.now()) };
    if (changes.name !== undefined) fields.name = changes.name;
    if (changes.status !== undefined) fields.status = changes.status;
    if (changes.maxSchedules !== undefined) fields.max_schedules = String(changes.maxSchedules);
    await this.redis.hset(this.key('project', project.id), fields);
    return this.mustGetProject(project.id);
  }

  async deleteProject(project: Project): Promise<void> {
    const multi = this.redis.multi();
    multi.del(this.key('project', project.id), this.key('project', project.id, 'shared'));
    multi.zrem(this.key('projects'), project.id);
    for (const userId of [project.userId, ...project.sharedWith]) {
      multi.srem(this.key('user', userId, 'projects'), project.id);
    }
    await multi.exec();
  }

  async share(project: Project, userIds: string[]): Promise<Project> {
    const multi = this.redis.multi();
    for (const userId of userIds) {
      if (userId === project.userId) continue;
      multi.sadd(this.key('project', project.id, 'shared'), userId);
      multi.sadd(this.key('user', userId, 'projects'), project.id);
    }
    await multi.exec();
    return this.mustGetProject(project.id);
  }

  async unshare(project: Project, userIds: string[]): Promise<Project> {
    const multi = this.redis.multi();
    for (const userId of userIds) {
      if (userId === project.userId) continue;
      multi.srem(this.key('project', project.id, 'shared'), userId);
      multi.srem(this.key('user', userId, 'projects'), project.id);
    }
    await multi.exec();
    return this.mustGetProject(project.id);
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

function projectToHash(project: Project): Record<string, string> {
  return {
    id: project.id,
    user_id: project.userId,
    name: project.name,
    type: project.type,
    partner: project.partner ?? '',
    status: project.status,
    max_schedules: String(project.maxSchedules),
    flags: JSON.stringify(project.flags),
    created_at: String(project.createdAt),
    updated_at: String(project.updatedAt),
  };
}

function projectFromHash(hash: Record<string, string>, sharedWith: string[]): Project {
  return {
    id: hash.id ?? '',
    userId: hash.user_id ?? '',
    name: hash.name ?? '',
    type: hash.type ?? 'free',
    partner: hash.partner ? hash.partner : null,
    status: (hash.status as ProjectStatus) ?? 'active',
    maxSchedules: Number(hash.max_schedules ?? 100),
    flags: JSON.parse(hash.flags ?? '{}') as Record<string, boolean>,
    sharedWith: sharedWith.sort(),
    createdAt: Number(hash.created_at),
    updatedAt: Number(hash.updated_at),
  };
}
