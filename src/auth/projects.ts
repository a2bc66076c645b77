import { fail } from '../core/errors.js';
import { newObjectId } from '../core/ids.js';
import type { RedisClient } from '../core/redis.js';
import type { Quotas } from './quotas.js';
import type { IdentityKeys } from './scripts.js';
import type { Project, ProjectStatus, User } from './types.js';
import { normalizeEmail, type UserStore } from './users.js';
import { Removals } from '../core/removals.js';

export interface NewProject {
  userId: string;
  name: string;
  id?: string;
  maxSchedules?: number;
}

/** Quota changes of one project: a number sets the project's own value, null returns to the default. */
export type QuotaChanges = Partial<Record<keyof Quotas, number | null>>;

export interface ProjectChanges {
  name?: string;
  status?: ProjectStatus;
  maxSchedules?: number;
  quotas?: QuotaChanges;
}

/**
 * Projects and their shares in Redis: each project's record under its own tag, the indexes
 * (every project, each user's) under {auth}. Knows nothing of HTTP or of who is allowed what.
 */
export class ProjectStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: IdentityKeys,
    /** Shares by e-mail find the address's user. */
    private readonly users: UserStore,
  ) {}

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
    const claimed = await this.redis.hsetnx(this.keys.project(project.id), 'id', project.id);
    if (claimed !== 1) throw fail('project_exists', project.id);
    await this.redis.hset(this.keys.project(project.id), projectToHash(project));
    await this.redis
      .multi()
      .sadd(this.keys.auth('user', project.userId, 'projects'), project.id)
      .zadd(this.keys.auth('projects'), 0, project.id)
      .exec();
    return project;
  }

  async getProject(id: string): Promise<Project | null> {
    const [hash, shared, emails] = await Promise.all([
      this.redis.hgetall(this.keys.project(id)),
      this.redis.smembers(this.keys.project(id, 'shared')),
      this.redis.hgetall(this.keys.project(id, 'shared-emails')),
    ]);
    return hash.id && hash.user_id ? { ...projectFromHash(hash, shared), sharedEmails: emails } : null;
  }

  async mustGetProject(id: string): Promise<Project> {
    const project = await this.getProject(id);
    if (!project) throw fail('project_not_found');
    return project;
  }

  /** Ids of every project, in id order, `count` at a time after `after` (exclusive). */
  async listProjectIds(after: string | undefined, count: number): Promise<string[]> {
    return this.redis.zrangebylex(this.keys.auth('projects'), after ? `(${after}` : '-', '+', 'LIMIT', 0, count);
  }

  /** How many projects the user owns (those shared with it do not count: others choose them). */
  async countOwnedProjects(userId: string): Promise<number> {
    const ids = await this.redis.smembers(this.keys.auth('user', userId, 'projects'));
    const owners = await Promise.all(ids.map((id) => this.redis.hget(this.keys.project(id), 'user_id')));
    return owners.filter((owner) => owner === userId).length;
  }

  /** The projects a user owns or that are shared with it, in id order. */
  async listProjectsOf(userId: string): Promise<Project[]> {
    const ids = (await this.redis.smembers(this.keys.auth('user', userId, 'projects'))).sort();
    const projects = await Promise.all(ids.map((id) => this.getProject(id)));
    return projects.filter((project): project is Project => project !== null);
  }

  async updateProject(project: Project, changes: ProjectChanges): Promise<Project> {
    const fields: Record<string, string> = { updated_at: String(Date.now()) };
    if (changes.name !== undefined) fields.name = changes.name;
    if (changes.status !== undefined) fields.status = changes.status;
    if (changes.maxSchedules !== undefined) fields.max_schedules = String(changes.maxSchedules);
    if (changes.quotas !== undefined) fields.quotas = JSON.stringify(mergedQuotas(project.quotas, changes.quotas));
    await this.redis.hset(this.keys.project(project.id), fields);
    return this.mustGetProject(project.id);
  }

  async deleteProject(project: Project): Promise<void> {
    await this.redis.del(
      this.keys.project(project.id),
      this.keys.project(project.id, 'shared'),
      this.keys.project(project.id, 'shared-emails'),
    );
    const removals = new Removals().zrem(this.keys.auth('projects'), project.id);
    for (const userId of [project.userId, ...project.sharedWith]) {
      removals.srem(this.keys.auth('user', userId, 'projects'), project.id);
    }
    await removals.run(this.redis);
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
    const addresses = emails.map(normalizeEmail).filter((email) => !Object.hasOwn(project.sharedEmails, email));
    const users = await Promise.all(addresses.map((email) => this.users.findUserByEmail(email)));
    const members = users.map((user) => (user && user.id !== project.userId ? user.id : ''));
    if (addresses.length > 0)
      await this.redis.hset(this.keys.project(project.id, 'shared-emails'), zipPairs(addresses, members));
    const pending = addresses.filter((_, i) => members[i] === '');
    for (const email of pending) await this.redis.sadd(this.keys.auth('invitations', email), project.id);
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
    await this.redis.hdel(this.keys.project(project.id, 'shared-emails'), ...addresses);
    for (const email of addresses) await this.redis.srem(this.keys.auth('invitations', email), project.id);
    return this.changeSharing(project, members, 'srem');
  }

  /** A new user gets the shares made to its e-mail address before it existed. */
  async acceptInvitations(user: User): Promise<void> {
    const email = normalizeEmail(user.email);
    const invitations = this.keys.auth('invitations', email);
    for (const projectId of await this.redis.smembers(invitations)) {
      const project = await this.getProject(projectId);
      if (project?.sharedEmails[email] !== '') continue;
      await this.redis.hset(this.keys.project(projectId, 'shared-emails'), email, user.id);
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
      if (byEmail.length > 0) await this.redis.hdel(this.keys.project(project.id, 'shared-emails'), ...byEmail);
    }
    if (others.length > 0) {
      await this.redis[change](this.keys.project(project.id, 'shared'), ...others);
      const multi = this.redis.multi();
      for (const userId of others) multi[change](this.keys.auth('user', userId, 'projects'), project.id);
      await multi.exec();
    }
    return this.mustGetProject(project.id);
  }
}

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
