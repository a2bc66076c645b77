import { fail } from '../core/errors.js';
import type { KeySpace, RedisClient } from '../core/redis.js';
import { access } from './access.js';
import type { Authenticator } from './authenticator.js';
import type { IdentityStores } from './identity.js';
import { readProjectCounters } from './project-counters.js';
import type { ProjectLifecycle } from './project-lifecycle.js';
import type { ProjectChanges } from './projects.js';
import { quotasOf, type Quotas } from './quotas.js';
import { shareIdentifiers } from './share-identifiers.js';
import type { Principal, Project, User } from './types.js';

/** A project as the identity API shows it: the record, its usage counters and its quotas in force. */
export interface ProjectDetails {
  project: Project;
  counters: Awaited<ReturnType<typeof readProjectCounters>>;
  quotas: Quotas;
}

export interface NewProjectRequest {
  name: string;
  /** The owner (admins only): a user id or e-mail address. */
  userId?: string;
  /** The id (admins only). */
  id?: string;
}

export interface ProjectServiceOptions {
  /** The operator's default quotas. */
  quotas: Quotas;
  /** How many projects a user may own through non-admin requests. */
  projectsPerUser: number;
}

const PROJECT_ID = /^[A-Za-z0-9_-]{1,64}$/;

const isEmailAddress = (identifier: string) => identifier.includes('@');

/**
 * Whether `principal` may create a project with `request` (the owner found, or null for the
 * caller): who may choose an owner or id, the id's form, the per-user cap, and ids never reused.
 */
export async function admitProject(
  principal: Principal,
  request: NewProjectRequest,
  facts: {
    owner: () => Promise<User | null>;
    ownedCount: () => Promise<number>;
    isTombstoned: (id: string) => Promise<boolean>;
    cap: number;
  },
): Promise<User | null> {
  if ((request.userId !== undefined || request.id !== undefined) && !principal.admin) {
    throw fail('choose_owner_admin_only');
  }
  if (request.id !== undefined && !PROJECT_ID.test(request.id)) throw fail('project_id_invalid');
  const owner = request.userId ? await facts.owner() : null;
  if (request.userId && !owner) throw fail('user_not_found');
  if (!principal.admin && (await facts.ownedCount()) >= facts.cap) throw fail('projects_per_user_reached', facts.cap);
  if (request.id !== undefined && (await facts.isTombstoned(request.id)))
    throw fail('project_id_of_deleted', request.id);
  return owner;
}

/**
 * The identity API's project operations, each one call: who may do it, the rules, the store
 * change and what follows (suspension flags, the project janitor, every controller's cache).
 */
export class ProjectService {
  constructor(
    private readonly stores: IdentityStores,
    private readonly authenticator: Authenticator,
    private readonly lifecycle: ProjectLifecycle,
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
    private readonly options: ProjectServiceOptions,
  ) {}

  async create(principal: Principal, request: NewProjectRequest): Promise<ProjectDetails> {
    const owner = await admitProject(principal, request, {
      owner: () => this.stores.users.findUser(request.userId!),
      ownedCount: () => this.stores.projects.countOwnedProjects(principal.userId),
      isTombstoned: (id) => this.lifecycle.isTombstoned(id),
      cap: this.options.projectsPerUser,
    });
    const project = await this.stores.projects.createProject({
      name: request.name,
      userId: owner?.id ?? principal.userId,
      id: request.id,
    });
    return this.details(project);
  }

  /** The projects the caller owns or that are shared with it. */
  async list(principal: Principal): Promise<ProjectDetails[]> {
    const projects = await this.stores.projects.listProjectsOf(principal.userId);
    return Promise.all(projects.map((project) => this.details(project)));
  }

  async get(principal: Principal, projectId: string): Promise<ProjectDetails> {
    return this.details(await this.usable(principal, projectId, false));
  }

  async update(principal: Principal, projectId: string, changes: ProjectChanges): Promise<ProjectDetails> {
    const project = await this.usable(principal, projectId, true);
    const adminOnly =
      changes.status !== undefined || changes.maxSchedules !== undefined || changes.quotas !== undefined;
    if (adminOnly && !principal.admin) throw fail('project_settings_admin_only');
    const updated = await this.stores.projects.updateProject(project, changes);
    if (changes.status !== undefined && changes.status !== project.status) {
      const owner = await this.stores.users.getUser(project.userId);
      await this.lifecycle.setSuspended(project.id, changes.status === 'suspended' || owner?.status === 'suspended');
    }
    await this.authenticator.projectChanged(project.id);
    return this.details(updated);
  }

  async delete(principal: Principal, projectId: string): Promise<void> {
    const project = await this.usable(principal, projectId, true);
    // Nothing new starts while the janitor purges the project's data in the background.
    await this.lifecycle.setSuspended(project.id, true);
    await this.stores.projects.deleteProject(project);
    await this.lifecycle.deleted(project.id);
    await this.authenticator.projectChanged(project.id);
  }

  /** A user a project is shared with leaves the share (the owner shares, only the user leaves). */
  async leave(principal: Principal, projectId: string): Promise<void> {
    const project = await this.usable(principal, projectId, false);
    const { userId } = principal;
    if (project.userId === userId) throw fail('owner_cannot_leave');
    if (!project.sharedWith.includes(userId)) throw fail('project_not_shared');
    await this.stores.projects.unshare(project, [userId]);
    await this.authenticator.projectChanged(project.id);
  }

  /**
   * Shares with (or unshares from) users by id and e-mail address. Addresses are shared with
   * whether or not a user has them, and shown as given: no answer tells whether one belongs to
   * someone; an unknown id is a 404 (ids tell nothing about addresses). `requested` is the
   * request's body, in any of the forms shareIdentifiers reads.
   */
  async changeSharing(
    principal: Principal,
    projectId: string,
    action: 'share' | 'unshare',
    requested: unknown,
  ): Promise<ProjectDetails> {
    const project = await this.usable(principal, projectId, true);
    const identifiers = shareIdentifiers(requested);
    const emails = identifiers.filter(isEmailAddress);
    const userIds = await this.knownUserIds(identifiers.filter((identifier) => !isEmailAddress(identifier)));
    let updated = await this.stores.projects[action](project, userIds);
    if (emails.length > 0)
      updated = await (action === 'share'
        ? this.stores.projects.shareWithEmails(updated, emails)
        : this.stores.projects.unshareEmails(updated, emails));
    await this.authenticator.projectChanged(project.id);
    return this.details(updated);
  }

  /** The project, when the caller may use it (and, with `manage`, change it). */
  private async usable(principal: Principal, projectId: string, manage: boolean): Promise<Project> {
    const project = await this.stores.projects.getProject(projectId);
    if (!project) throw fail('project_not_found');
    if (!access.useProject(principal, project)) throw fail('no_project_access');
    if (manage && !access.manageProject(principal, project)) throw fail('owner_only');
    return project;
  }

  /** User ids as given, each known (404 for an unknown one). */
  private async knownUserIds(ids: string[]): Promise<string[]> {
    const users = await Promise.all(ids.map((id) => this.stores.users.getUser(id)));
    return users.map((user, i) => {
      if (!user) throw fail('user_not_found_by_id', ids[i]!);
      return user.id;
    });
  }

  private async details(project: Project): Promise<ProjectDetails> {
    const counters = await readProjectCounters(this.redis, this.keys, project.id);
    return { project, counters, quotas: quotasOf(project, this.options.quotas) };
  }
}
