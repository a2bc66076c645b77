import type {
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestAsyncHookHandler,
  onRequestHookHandler,
} from 'fastify';
import type { ProjectAccessOptions } from '../src/auth/authenticator.js';
import type { Principal, Project } from '../src/auth/types.js';
import { fail } from '../src/core/errors.js';
import type { AppContext } from './context.js';
import { sessionCookieToken } from './dashboard-session-cookie.js';
import { pathParameter, queryParameter } from './request-fields.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    project: Project | null;
  }
}

const SCHEME = 'OAuth ';

/**
 * The token a request presents: `Authorization: OAuth <token>` (exactly that case), `?oauth=`,
 * or the dashboard's session cookie. A header with another scheme is a bad credential, not a
 * missing one.
 */
export function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined && header !== '') {
    if (!header.startsWith(SCHEME)) throw fail('authorization_not_oauth');
    return header.slice(SCHEME.length).trim() || undefined;
  }
  const fromQuery = queryParameter(request, 'oauth');
  if (typeof fromQuery === 'string' && fromQuery !== '') return fromQuery;
  return sessionCookieToken(request);
}

/** Task tokens reach their own project's APIs only: never identity, clusters or anything not under a project. */
export function refuseTaskToken(principal: Principal): Principal {
  if (principal.task) throw fail('task_token_out_of_scope');
  return principal;
}

export interface ProjectHookOptions extends ProjectAccessOptions {
  /** The routes are in a task token's scope (queues, caches, code packages, tasks); others refuse it. */
  allowTaskTokens?: boolean;
}

/**
 * Hook (onRequest, so that strangers learn nothing from validation): the request must carry a
 * valid token (a user's, not a task's).
 */
export function requireToken(ctx: AppContext): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    request.principal = refuseTaskToken(await ctx.authenticator.authenticate(presentedToken(request)));
  };
}

/**
 * Hook: a valid token with access to the `project_id` path parameter's project. Callback style:
 * with the token and the project cached (a busy client's requests) it ends in the same turn,
 * with no promise (see authorizeRequest).
 */
export function requireProject(ctx: AppContext, options: ProjectHookOptions = {}): onRequestHookHandler {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    let pending: Promise<void> | undefined;
    try {
      pending = authorizeRequest(ctx, request, options);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (pending) pending.then(() => done(), done);
    else done();
  };
}

/**
 * Sets the request's principal and project (requireProject's check); undefined when it could
 * from this controller's cache at once, else a promise of the look-ups.
 */
export function authorizeRequest(
  ctx: AppContext,
  request: FastifyRequest,
  options: ProjectHookOptions,
): Promise<void> | undefined {
  const secret = presentedToken(request);
  const projectId = pathParameter(request, 'project_id') ?? '';
  const cached = ctx.authenticator.cachedProjectAccess(secret, projectId, options);
  if (!cached) return lookUpAccess(ctx, request, secret, projectId, options);
  if (!options.allowTaskTokens) refuseTaskToken(cached.principal);
  request.principal = cached.principal;
  request.project = cached.project;
  ctx.budget.noteRequest(projectId);
  return undefined;
}

async function lookUpAccess(
  ctx: AppContext,
  request: FastifyRequest,
  secret: string | undefined,
  projectId: string,
  options: ProjectHookOptions,
): Promise<void> {
  const principal = await ctx.authenticator.authenticate(secret);
  if (!options.allowTaskTokens) refuseTaskToken(principal);
  request.principal = principal;
  request.project = await ctx.authenticator.authorizeProject(principal, projectId, options);
  ctx.budget.noteRequest(projectId);
}

/** The principal set by requireToken/requireProject; only call from routes that use them. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw fail('not_authenticated');
  return request.principal;
}

export function projectOf(request: FastifyRequest): Project {
  if (!request.project) throw fail('not_authenticated');
  return request.project;
}
