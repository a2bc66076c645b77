import type { Principal } from '../../auth/types.js';
import { fail } from '../../core/errors.js';
import type { FunctionAccess } from '../apps/access.js';
import type { App, CallRecord } from '../types.js';
import type { CallPage, CallStore } from './call-store.js';

/**
 * A call is its app's when it was made after the app was: a call left by an earlier app of the
 * same name (deleted, the name taken again, maybe by another project) is not the new app's.
 */
function madeBy(app: App, call: CallRecord): boolean {
  return call.projectId === app.projectId && call.createdAt >= app.createdAt;
}

/** The call records and logs of the apps a principal may see. */
export class CallRecords {
  constructor(
    private readonly calls: CallStore,
    private readonly access: FunctionAccess,
  ) {}

  /** Newest first: after `cursor` (a call id) when given, else from page `page`. */
  async list(
    principal: Principal,
    appName: string,
    options: { cursor?: string; page: number; perPage: number },
  ): Promise<CallPage> {
    const found = await this.access.mustSeeApp(principal, appName);
    const { calls, nextCursor } = await this.calls.list(found.name, options);
    return { calls: calls.filter((call) => madeBy(found, call)), nextCursor };
  }

  async get(principal: Principal, appName: string, callId: string): Promise<CallRecord> {
    const found = await this.access.mustSeeApp(principal, appName);
    const call = await this.calls.get(found.name, callId);
    if (!call || !madeBy(found, call)) throw fail('fn_call_not_found');
    return call;
  }

  /** The call's stderr log ('' when it wrote none). */
  async log(principal: Principal, appName: string, callId: string): Promise<{ call: CallRecord; log: string }> {
    const call = await this.get(principal, appName, callId);
    return { call, log: await this.calls.log(call.appName, call.id) };
  }
}
