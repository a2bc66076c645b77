import { fail } from '../core/errors.js';
import { access } from './access.js';
import type { Authenticator } from './authenticator.js';
import type { IdentityStores } from './identity.js';
import type { ProjectLifecycle } from './project-lifecycle.js';
import type { Principal, Project, User, UserStatus } from './types.js';
import { normalizeEmail } from './users.js';
import { checkEmail, checkPassword } from './validation.js';

/** Shares made to an e-mail address before anyone had it, kept by another service (clusters). */
export interface InvitationHolder {
  acceptInvitations(email: string, userId: string): Promise<void>;
}

export interface UserChanges {
  email?: string;
  password?: string;
  status?: UserStatus;
}

/**
 * The identity API's user operations, each one call: who may do it, the checks, the store
 * change and what follows from it (shares accepted, projects suspended, tokens revoked).
 */
export class UserService {
  constructor(
    private readonly stores: IdentityStores,
    private readonly authenticator: Authenticator,
    private readonly lifecycle: ProjectLifecycle,
    private readonly invitations: InvitationHolder[],
  ) {}

  async create(principal: Principal, input: { email: string; password: string; admin?: boolean }): Promise<User> {
    if (!access.manageUsers(principal)) throw fail('create_users_admin_only');
    checkEmail(input.email);
    checkPassword(input.password);
    const user = await this.stores.users.createUser(input);
    await this.acceptInvitations(user);
    return user;
  }

  /** Users in id order after `previous`, at most 100 a page. */
  async list(principal: Principal, previous: string | undefined, perPage: number): Promise<User[]> {
    if (!access.manageUsers(principal)) throw fail('list_users_admin_only');
    return this.stores.users.listUsers(previous || undefined, Math.min(perPage, 100));
  }

  /** The user named, when the caller may see it (a stranger gets 404, not a hint). */
  async visible(principal: Principal, idOrEmail: string): Promise<User> {
    const user = await this.stores.users.findUser(idOrEmail);
    // Another user's account answers as if it did not exist, so e-mails cannot be probed.
    if (!user || !access.seeUser(principal, user)) throw fail('user_not_found');
    return user;
  }

  async update(principal: Principal, idOrEmail: string, changes: UserChanges): Promise<User> {
    const user = await this.visible(principal, idOrEmail);
    if (changes.email !== undefined) checkEmail(changes.email);
    // A taken address answers 409: only admins (who see every user anyway) may try one.
    if (changes.email !== undefined && !principal.admin) throw fail('change_email_admin_only');
    if (changes.password !== undefined) checkPassword(changes.password);
    if (changes.status !== undefined && !principal.admin) throw fail('change_user_status_admin_only');
    const updated = await this.stores.users.updateUser(user, changes);
    if (changes.email !== undefined) await this.acceptInvitations(updated);
    if (changes.status !== undefined && changes.status !== user.status)
      await this.suspendProjects(user, changes.status);
    if (changes.status === 'suspended') await this.revokeTokens(user);
    return updated;
  }

  /** Deletes the user and its tokens, which stop working on every controller at once. */
  async delete(principal: Principal, idOrEmail: string): Promise<void> {
    const user = await this.visible(principal, idOrEmail);
    const revoked = await this.stores.users.deleteUser(user);
    await this.authenticator.tokensRevoked(revoked);
  }

  /** A user's own projects are suspended with it (and resumed with it unless suspended themselves). */
  private async suspendProjects(user: User, status: UserStatus): Promise<void> {
    const owned = (await this.stores.projects.listProjectsOf(user.id)).filter(
      (project: Project) => project.userId === user.id,
    );
    for (const project of owned) {
      await this.lifecycle.setSuspended(project.id, status === 'suspended' || project.status === 'suspended');
    }
  }

  /** A suspended user's tokens stop on every controller at once. */
  private async revokeTokens(user: User): Promise<void> {
    const tokens = await this.stores.tokens.listTokens(user.id);
    await this.authenticator.tokensRevoked(tokens.map((token) => token.secretHash));
  }

  /** The shares made to a user's e-mail address before anyone had it. */
  private async acceptInvitations(user: User): Promise<void> {
    await this.stores.projects.acceptInvitations(user);
    for (const holder of this.invitations) await holder.acceptInvitations(normalizeEmail(user.email), user.id);
  }
}
