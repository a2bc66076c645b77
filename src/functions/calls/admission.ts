import { countQuotaReached, quotasOf, type Quotas } from '../../auth/quotas.js';
import { fail } from '../../core/errors.js';
import { newUnguessableId } from '../../core/ids.js';
import type { RedisClient } from '../../core/redis.js';
import type { FunctionKeys } from '../keys.js';
import type { RouteCache } from '../routes/route-cache.js';
import { checkRouteSecret } from '../routes/route-secret.js';
import { scripts } from '../scripts.js';
import type { LoadedRoute } from '../types.js';
import { checkCallRoom } from './call-bytes.js';
import type { CallStore } from './call-store.js';
import type { CallRequest } from './invocation.js';
import { CallHeadroom } from './call-headroom.js';

/** Where a call's project, and so its quotas, comes from (the authenticator's cache of projects). */
export interface ProjectSource {
  getProject(projectId: string): Promise<{ quotas: Partial<Quotas> } | null>;
}

/** A call as the /r/ endpoint received it: its app, the rest of its URL path, and its request. */
export interface IncomingCall extends Omit<CallRequest, 'callId'> {
  appName: string;
  /** The URL path after the app name, without its leading slash (`''` for the app's root). */
  path: string;
  authorization: string | undefined;
  /** Told the call's id as soon as it has one: the refusals after that point name it too. */
  named?(callId: string): void;
}

/** A call let in: its route and its id; an async one already holds a place among its project's queued calls. */
export interface AdmittedCall extends LoadedRoute {
  callId: string;
}

/** `/r/app/path/` is the route `/path`, as the router ignores trailing slashes elsewhere. */
function routePathOf(path: string): string {
  // Most paths have no trailing slash: no regular expression for them.
  return path.endsWith('/') ? `/${path}`.replace(/(.)\/+$/, '$1') : `/${path}`;
}

/**
 * The one gate of function calls. A call is let in when its app and route exist, its project is
 * not suspended, it carries the route's token when the route has a secret, and its project has
 * room: stored_bytes not full (its record and log will count toward them) and, for an async
 * call, fewer than queued_calls waiting. The body's size is bounded before this, as the body
 * is read (FERRUM_FUNCTIONS_BODY_LIMIT_BYTES).
 */
export class CallAdmission {
  private readonly room: CallHeadroom;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FunctionKeys,
    private readonly calls: CallStore,
    private readonly routes: RouteCache,
    private readonly projects: ProjectSource,
    private readonly quotaDefaults: Quotas,
  ) {
    this.room = new CallHeadroom(calls.maxCallBytes);
  }

  /** The call's route (from the route cache) and a new call id; 404, 403, 401 or 413 naming what stops it. */
  async admit(call: IncomingCall): Promise<AdmittedCall> {
    // A cached route and a public one take no await (a call of a hot route is mostly these).
    const path = routePathOf(call.path);
    const { app, route, suspended } =
      this.routes.cached(call.appName, path) ?? (await this.routes.load(call.appName, path));
    if (!app) throw fail('fn_app_not_found');
    if (!route) throw fail('fn_route_not_found');
    if (suspended) throw fail('fn_call_project_suspended');
    if (route.secret) await checkRouteSecret(route, call.authorization);
    const callId = newUnguessableId();
    call.named?.(callId);
    const queued = route.type === 'async';
    // A sync call takes no place in the queue: the room a recent read found may let it in.
    if (queued || !this.room.take(app.projectId)) {
      const project = await this.projects.getProject(app.projectId);
      await this.takeRoom(app.projectId, quotasOf(project ?? { quotas: {} }, this.quotaDefaults), queued);
    }
    return { app, route, callId };
  }

  /**
   * One script under the project's hash tag (admit-call.lua) reads what its calls store and, for
   * an async call, takes a place among its queued calls; what the project stores elsewhere is
   * read alongside. A call refused for its bytes gives the place back. What the read found
   * lets the next sync calls in without a read while their most bytes fit (CallHeadroom).
   */
  private async takeRoom(projectId: string, quotas: Quotas, queued: boolean): Promise<void> {
    const queuedCalls = this.keys.queuedCalls(projectId);
    const [[stored, place], allowance] = await Promise.all([
      scripts.admitCall.run<[number, number]>(
        this.redis,
        [...this.calls.bytes.countedKeys(projectId), queuedCalls],
        queued ? [quotas.queued_calls] : [],
      ),
      this.calls.bytes.allowance(projectId, quotas.stored_bytes),
    ]);
    try {
      checkCallRoom(stored, allowance, quotas.stored_bytes);
    } catch (error) {
      if (place === 1) await this.calls.leftQueue(projectId);
      throw error;
    }
    if (place === 0) throw countQuotaReached('queued_calls', quotas.queued_calls, 'async calls waiting for a runner');
    this.room.found(projectId, allowance - stored);
  }
}
