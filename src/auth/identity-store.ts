import { createHash } from 'node:crypto';
import { conflict, notFound } from '../core/errors.js';
import { newObjectId, newSecret } from '../core/ids.js';
import { loadLua } from '../core/lua.js';
import type { KeySpace, RedisClient } from '../core/redis.js';
import { hashPassword } from './password.js';
import type { Quotas } from './quotas.js';
import type { Project, ProjectStatus, Token, TokenType, User, UserStatus } from './types.js';

const createUserScript = loadLua(import.meta.url, 'create-user');
const changeEmailScript = loadLua(import.meta.url, 'change-email');

// Users and the identity indexes share the {auth} hash tag (multi-key scripts keep e-mails
// unique). What every request looks up is spread over a Redis Cluster instead: a token's
// record by its secret's digest under a tag of its own, a project's record under the project's.
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

  /** The token whose secret has `digest`, as JSON: what authentication reads. */
  private tokenByDigestKey(digest: string): string {
    return this.keys.of(`{t:${digest.slice(DIGEST_PREFIX.length)}}`, 'token');
  }

  private projectKey(projectId: string, ...parts: string[]): string {
    return this.keys.of(`{p:${projectId}}`, 'project', ...parts);
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
    multi.del(this.key('user', user.id, 'projects'));
    await Promise.all(tokens.map((token) => this.redis.del(this.tokenByDigestKey(token.secretHash))));
    await multi.exec();
    await Promise.all(projectIds.map((projectId) => this.redis.srem(this.projectKey(projectId, 'shared'), user.id)));
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
    const hash = tokenToHash(token);
    // Claimed and usable in one step; listed (under {auth}) right after. A crash between the two
    // leaves a token its owner cannot see, never a listed one that does not work.
    const claimed = await this.redis.set(this.tokenByDigestKey(token.secretHash), JSON.stringify(hash), 'NX');
    if (claimed !== 'OK') throw conflict('token value is already in use');
    await this.redis
      .multi()
      .hset(this.key('token', token.id), hash)
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
    const digest = tokenDigest(secret);
    const json = await this.redis.get(this.tokenByDigestKey(digest));
    if (json) return tokenFromHash(JSON.parse(json) as Record<string, string>);
    // Written by an earlier version (or a controller not yet upgraded): the {auth} secrets index,
    // by digest or in the clear. Moved to the new layout on first use.
    const [hashedId, clearId] = await this.redis.hmget(this.key('secrets'), digest, secret);
    if (hashedId) return this.moveIndexedToken(digest, digest, hashedId);
    if (clearId) return this.moveIndexedToken(secret, digest, clearId);
    return null;
  }

  /**
   * Moves every token of the earlier {auth} secrets index (digests, or secrets in the clear) to
   * its own key by digest; run at start, in batches. Returns how many were moved.
   */
  async hashStoredSecrets(): Promise<number> {
    let moved = 0;
    let cursor = '0';
    do {
      // HSCAN returns every field present throughout, however many are removed meanwhile.
      const [next, flat] = await this.redis.hscan(this.key('secrets'), cursor, 'COUNT', MIGRATION_BATCH);
      cursor = next;
      for (let i = 0; i < flat.length; i += 2) {
        const field = flat[i] as string;
        const digest = field.startsWith(DIGEST_PREFIX) ? field : tokenDigest(field);
        await this.moveIndexedToken(field, digest, flat[i + 1] as string);
        moved += 1;
      }
    } while (cursor !== '0');
    return moved;
  }

  /** Writes an earlier version's token (indexed under `field`) by its digest, then drops the old index entry. */
  private async moveIndexedToken(field: string, digest: string, tokenId: string): Promise<Token | null> {
    const tokenKey = this.key('token', tokenId);
    const hash = await this.redis.hgetall(tokenKey);
    let token: Token | null = null;
    if (hash.id) {
      const { secret: _secret, ...kept } = hash;
      const secret = field === digest ? undefined : field;
      const stored = { ...kept, secret_hash: digest, ...(secret ? { hint: hintOf(secret) } : {}) };
      await this.redis.set(this.tokenByDigestKey(digest), JSON.stringify(stored), 'NX');
      await this.redis.multi().hset(tokenKey, stored).hdel(tokenKey, 'secret').exec();
      token = tokenFromHash(stored);
    }
    await this.redis.hdel(this.key('secrets'), field);
    return token;
  }

  /** How many tokens the user has (sign-in tokens included). */
  async countTokens(userId: string): Promise<number> {
    return this.redis.scard(this.key('user', userId, 'tokens'));
  }

  async listTokens(userId: string): Promise<Token[]> {
    const ids = await this.redis.smembers(this.key('user', userId, 'tokens'));
    const tokens = await Promise.all(ids.map((id) => this.getToken(id)));
    return tokens.filter((token): token is Token => token !== null).sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Stops the token at once (its key by digest goes first), then unlists it. */
  async deleteToken(token: Token): Promise<void> {
    await this.redis.del(this.tokenByDigestKey(token.secretHash));
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
      quotas: {},
      flags: {},
      sharedWith: [],
      sharedEmails: {},
      createdAt: now,
      updatedAt: now,
    };
    // The record first (claimed, then whole: a half-written one reads as absent), then the indexes.
    const claimed = await this.redis.hsetnx(this.projectKey(project.id), 'id', project.id);
    if (claimed !== 1) throw conflict(`project ${project.id} already exists`);
    await this.redis.hset(this.projectKey(project.id), projectToHash(project));
    await this.redis
      .multi()
      .sadd(this.key('user', project.userId, 'projects'), project.id)
      .zadd(this.key('projects'), 0, project.id)
      .exec();
    return project;
  }

  async getProject(id: string): Promise<Project | null> {
    const [hash, shared, emails] = await Promise.all([
      this.redis.hgetall(this.projectKey(id)),
      this.redis.smembers(this.projectKey(id, 'shared')),
      this.redis.hgetall(this.projectKey(id, 'shared-emails')),
    ]);
    return hash.id && hash.user_id ? { ...projectFromHash(hash, shared), sharedEmails: emails } : null;
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

  /** How many projects the user owns (those shared with it do not count: others choose them). */
  async countOwnedProjects(userId: string): Promise<number> {
    const ids = await this.redis.smembers(this.key('user', userId, 'projects'));
    const owners = await Promise.all(ids.map((id) => this.redis.hget(this.projectKey(id), 'user_id')));
    return owners.filter((owner) => owner === userId).length;
  }

  /** The projects a user owns or that are shared with it, in id order. */
  async listProjectsOf(userId: string): Promise<Project[]> {
    const ids = (await this.redis.smembers(this.key('user', userId, 'projects'))).sort();
    const projects = await Promise.all(ids.map((id) => this.getProject(id)));
    return projects.filter((project): project is Project => project !== null);
  }

  async updateProject(
    project: Project,
    changes: { name?: string; status?: ProjectStatus; maxSchedules?: number; quotas?: QuotaChanges },
  ): Promise<Project> {
    const fields: Record<string, string> = { updated_at: String(Date.now()) };
    if (changes.name !== undefined) fields.name = changes.name;
    if (changes.status !== undefined) fields.status = changes.status;
    if (changes.maxSchedules !== undefined) fields.max_schedules = String(changes.maxSchedules);
    if (changes.quotas !== undefined) fields.quotas = JSON.stringify(mergedQuotas(project.quotas, changes.quotas));
    await this.redis.hset(this.projectKey(project.id), fields);
    return this.mustGetProject(project.id);
  }

  async deleteProject(project: Project): Promise<void> {
    await this.redis.del(
      this.projectKey(project.id),
      this.projectKey(project.id, 'shared'),
      this.projectKey(project.id, 'shared-emails'),
    );
    const multi = this.redis.multi();
    multi.zrem(this.key('projects'), project.id);
    for (const userId of [project.userId, ...project.sharedWith]) {
      multi.srem(this.key('user', userId, 'projects'), project.id);
    }
    await multi.exec();
  }

  /** Shares with users: the project's list first (it grants access), then each user's index. */
  async share(project: Project, userIds: string[]): Promise<Project> {
    return this.changeSharing(project, userIds, 'sadd');
  }

  /** Unshares: the project's list first (access ends at once), then each user's index. */
  async unshare(project: Project, userIds: string[]): Promise<Project> {
    return this.changeSharing(project, userIds, 'srem');
  }

  /**
   * Shares with e-mail addresses, whether or not a user has them: a known address's user gets
   * access now, an unknown one's when a user is created with it (see acceptInvitations).
   */
  async shareWithEmails(project: Project, emails: string[]): Promise<Project> {
    const addresses = emails.map(normalizeEmail).filter((email) => !(email in project.sharedEmails));
    const users = await Promise.all(addresses.map((email) => this.findUserByEmail(email)));
    const members = users.map((user) => (user && user.id !== project.userId ? user.id : ''));
    if (addresses.length > 0)
      await this.redis.hset(this.projectKey(project.id, 'shared-emails'), zipPairs(addresses, members));
    const pending = addresses.filter((_, i) => members[i] === '');
    for (const email of pending) await this.redis.sadd(this.key('invitations', email), project.id);
    return this.changeSharing(
      project,
      members.filter((id) => id !== ''),
      'sadd',
    );
  }

  /** Ends shares made by e-mail (an address never shared with is no error). */
  async unshareEmails(project: Project, emails: string[]): Promise<Project> {
    const addresses = emails.map(normalizeEmail);
    const members = addresses.map((email) => project.sharedEmails[email]).filter((id): id is string => Boolean(id));
    await this.redis.hdel(this.projectKey(project.id, 'shared-emails'), ...addresses);
    for (const email of addresses) await this.redis.srem(this.key('invitations', email), project.id);
    return this.changeSharing(project, members, 'srem');
  }

  /** A new user gets the shares made to its e-mail address before it existed. */
  async acceptInvitations(user: User): Promise<void> {
    const email = normalizeEmail(user.email);
    const invitations = this.key('invitations', email);
    for (const projectId of await this.redis.smembers(invitations)) {
      const project = await this.getProject(projectId);
      if (project?.sharedEmails[email] !== '') continue;
      await this.redis.hset(this.projectKey(projectId, 'shared-emails'), email, user.id);
      await this.changeSharing(project, [user.id], 'sadd');
    }
    await this.redis.del(invitations);
  }

  private async changeSharing(project: Project, userIds: string[], change: 'sadd' | 'srem'): Promise<Project> {
    const others = userIds.filter((userId) => userId !== project.userId);
    if (change === 'srem') {
      // A share made by e-mail ends too when its user is unshared by id (or leaves).
      const byEmail = Object.keys(project.sharedEmails).filter((email) =>
        others.includes(project.sharedEmails[email]!),
      );
      if (byEmail.length > 0) await this.redis.hdel(this.projectKey(project.id, 'shared-emails'), ...byEmail);
    }
    if (others.length > 0) {
      await this.redis[change](this.projectKey(project.id, 'shared'), ...others);
      const multi = this.redis.multi();
      for (const userId of others) multi[change](this.key('user', userId, 'projects'), project.id);
      await multi.exec();
    }
    return this.mustGetProject(project.id);
  }

  /**
   * Moves projects an earlier version kept under {auth} to their own keys; run at start, a
   * bounded batch of the project index per step. Returns how many were moved.
   */
  async moveEarlierProjects(): Promise<number> {
    let moved = 0;
    let after: string | undefined;
    for (;;) {
      const ids = await this.listProjectIds(after, MIGRATION_BATCH);
      if (ids.length === 0) return moved;
      const earlier = await Promise.all(ids.map((id) => this.redis.exists(this.key('project', id))));
      for (const [i, id] of ids.entries()) if (earlier[i] === 1 && (await this.moveEarlierProject(id))) moved += 1;
      after = ids[ids.length - 1];
    }
  }

  private async moveEarlierProject(id: string): Promise<boolean> {
    const [hash, shared] = await Promise.all([
      this.redis.hgetall(this.key('project', id)),
      this.redis.smembers(this.key('project', id, 'shared')),
    ]);
    if (hash.id && (await this.redis.hsetnx(this.projectKey(id), 'id', id)) === 1) {
      await this.redis.hset(this.projectKey(id), hash);
      if (shared.length > 0) await this.redis.sadd(this.projectKey(id, 'shared'), ...shared);
    }
    await this.redis.del(this.key('project', id), this.key('project', id, 'shared'));
    return Boolean(hash.id);
  }
}

/** Quota changes of one project: a number sets the project's own value, null returns to the default. */
export type QuotaChanges = Partial<Record<keyof Quotas, number | null>>;

function mergedQuotas(current: Partial<Quotas>, changes: QuotaChanges): Partial<Quotas> {
  const merged: Partial<Quotas> = { ...current };
  for (const [name, value] of Object.entries(changes) as Array<[keyof Quotas, number | null]>) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  return merged;
}

function zipPairs(names: string[], values: string[]): Record<string, string> {
  return Object.fromEntries(names.map((name, i) => [name, values[i]!]));
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
    quotas: JSON.stringify(project.quotas),
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
    quotas: JSON.parse(hash.quotas ?? '{}') as Partial<Quotas>,
    flags: JSON.parse(hash.flags ?? '{}') as Record<string, boolean>,
    sharedWith: sharedWith.sort(),
    sharedEmails: {},
    createdAt: Number(hash.created_at),
    updatedAt: Number(hash.updated_at),
  };
}
