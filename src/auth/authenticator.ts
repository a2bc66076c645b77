import { fail, HttpError } from '../core/errors.js';
import type { EventBus } from '../core/bus.js';
import type { KeySpace } from '../core/redis.js';
import { access } from './access.js';
import type { IdentityStores } from './identity.js';
import { tokenDigest } from './tokens.js';
import { RefreshAheadCache } from '../core/refresh-ahead-cache.js';
import { LEGACY_TOKEN_TYPE, type Principal, type Project, type TaskTokenLookup } from './types.js';

interface Invalidation {
  token?: string;
  project?: string;
}

export interface ProjectAccessOptions {
  /** Version 3 APIs refuse tokens of the earlier API generation. */
  refuseLegacyTokens?: boolean;
}

/** A cached principal, keyed by the token's secret so that a hit needs no hashing; `digest` is what invalidations name. */
interface CachedPrincipal {
  digest: string;
  principal: Principal;
}

/**
 * Turns a presented token into a Principal and checks project access, the one authentication
 * layer every service uses. Look-ups are cached for a few seconds in process; deletions and
 * project changes are broadcast so every controller drops its copy at once. A token or project
 * in steady use is looked up again in the background before its entry ends
 * (RefreshAheadCache), so its requests never wait for the look-up, and one look-up per token or
 * project runs at a time.
 */
export class Authenticator {
  private readonly principals: RefreshAheadCache<CachedPrincipal>;
  private readonly projects: RefreshAheadCache<Project>;
  private readonly channel: string;

  constructor(
    private readonly store: Pick<IdentityStores, 'users' | 'tokens' | 'projects'>,
    private readonly bus: EventBus,
    keys: KeySpace,
    cacheMs: number,
    private readonly taskTokens?: TaskTokenLookup,
  ) {
    this.principals = new RefreshAheadCache(cacheMs, (secret) => this.userPrincipal(secret));
    this.projects = new RefreshAheadCache(
      cacheMs,
      async (projectId) => (await this.store.projects.getProject(projectId)) ?? undefined,
    );
    this.channel = keys.of('auth', 'invalidate');
  }

  async start(): Promise<void> {
    await this.bus.subscribe(this.channel, (message) => this.dropCached(message));
  }

  /** The principal behind a token; 401 when missing or unknown. */
  async authenticate(secret: string | undefined): Promise<Principal> {
    if (!secret) throw fail('token_not_provided');
    const cached = this.principals.peek(secret);
    if (cached) return cached.principal;
    const user = await this.principals.get(secret);
    if (user) return user.principal;
    // Not a user's token: a running task's own, or nothing (user tokens stay one look-up away).
    const task = await this.taskPrincipal(secret);
    if (task) return task;
    throw fail('invalid_token');
  }

  /** A user's token as cached; undefined when the secret is no user's token, a refusal when its owner is gone or suspended. */
  private async userPrincipal(secret: string): Promise<CachedPrincipal | undefined> {
    const token = await this.store.tokens.findTokenBySecret(secret);
    if (!token) return undefined;
    const owner = await this.store.users.getUser(token.userId);
    if (!owner) throw fail('invalid_token');
    if (owner.status === 'suspended') throw fail('user_suspended');
    const principal: Principal = {
      tokenId: token.id,
      userId: token.userId,
      admin: token.admin,
      type: token.type,
    };
    return { digest: tokenDigest(secret), principal };
  }

  /**
   * A running task's own token: its project only, for as long as the task runs. Never cached,
   * so that it stops working the moment its task ends or the runner revokes it.
   */
  private async taskPrincipal(secret: string): Promise<Principal | null> {
    const grant = await this.taskTokens?.find(secret);
    if (!grant) return null;
    return {
      tokenId: `task:${grant.task_id}`,
      userId: '',
      admin: false,
      type: 'standard',
      task: { projectId: grant.project_id, taskId: grant.task_id },
    };
  }

  /** The project a principal may use; 404 unknown, 403 not allowed or suspended (admins excepted). */
  async authorizeProject(
    principal: Principal,
    projectId: string,
    options: ProjectAccessOptions = {},
  ): Promise<Project> {
    refuseLegacyToken(principal, options);
    const project = await this.getProject(projectId);
    if (!project) throw fail('project_not_found');
    return allowedProject(principal, project);
  }

  /**
   * authenticate and authorizeProject at once when this controller has both the token and the
   * project cached: no Redis and no promise, for the requests of a busy client. The same
   * refusals; undefined when either must be looked up (then the two calls above do it).
   */
  cachedProjectAccess(
    secret: string | undefined,
    projectId: string,
    options: ProjectAccessOptions = {},
  ): { principal: Principal; project: Project } | undefined {
    const principal = secret ? this.principals.peek(secret)?.principal : undefined;
    if (!principal) return undefined;
    refuseLegacyToken(principal, options);
    const project = this.projects.peek(projectId);
    if (!project) return undefined;
    return { principal, project: allowedProject(principal, project) };
  }

  /**
   * The token check other services make (GET /1/authentication): null when the token is
   * accepted (for `projectId`, when given), else the refusal's message. `presented` reads the
   * token from the request: a malformed one is a refusal too.
   */
  async refusalOf(presented: () => string | undefined, projectId: string | undefined): Promise<string | null> {
    try {
      const principal = await this.authenticate(presented());
      if (projectId !== undefined) await this.authorizeProject(principal, projectId);
      return null;
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      return error.message;
    }
  }

  /** A project's record, from this controller's cache when it has it (changes are broadcast). */
  async getProject(projectId: string): Promise<Project | null> {
    return (await this.projects.get(projectId)) ?? null;
  }

  /** Drops cached principals everywhere; `digests` are the tokens' `secretHash`. */
  async tokensRevoked(digests: string[]): Promise<void> {
    await Promise.all(digests.map((token) => this.broadcast({ token })));
  }

  async projectChanged(projectId: string): Promise<void> {
    await this.broadcast({ project: projectId });
  }

  private async broadcast(invalidation: Invalidation): Promise<void> {
    this.dropCached(JSON.stringify(invalidation));
    await this.bus.publish(this.channel, JSON.stringify(invalidation));
  }

  private dropCached(message: string): void {
    try {
      const { token, project } = JSON.parse(message) as Invalidation;
      if (token) this.principals.deleteWhere((cached) => cached.digest === token);
      if (project) this.projects.delete(project);
    } catch {
      this.principals.clear();
      this.projects.clear();
    }
  }
}

function refuseLegacyToken(principal: Principal, options: ProjectAccessOptions): void {
  if (options.refuseLegacyTokens && principal.type === LEGACY_TOKEN_TYPE) throw fail('legacy_token_refused');
}

/** `project` when the principal may use it; 403 not allowed or suspended (admins excepted). */
function allowedProject(principal: Principal, project: Project): Project {
  if (!access.useProject(principal, project)) throw fail('no_project_access');
  // Admins may still look at a suspended project and cancel its work (nothing new starts: see ProjectLifecycle).
  if (project.status === 'suspended' && !principal.admin) throw fail('project_suspended');
  return project;
}
