import type { FunctionInvocation, FunctionResult } from './function-executor.js';
import type { CallAdmission, IncomingCall } from './admission.js';
import type { CallQueue } from './call-queue.js';
import { encodeCallMessage, type CallReply } from './call-message.js';
import type { CallReplies } from './call-replies.js';
import type { CallStore } from './call-store.js';
import { invocationOf } from './invocation.js';
import type { FunctionMetrics } from './metrics.js';
import type { CallRecord, Route, RouteType } from '../types.js';

export interface FunctionCallsOptions {
  /** The cluster whose runners take the calls. */
  cluster: string;
  /** How long a sync call may wait for a runner to take it. */
  queueWaitMs: number;
  /** Beyond the route's timeout: container start, image pull, the trip back. */
  graceMs: number;
}

/** A runner in this very process (the all-in-one server), which may take a sync call without the queue. */
export interface LocalFunctionRunner {
  /** The call's result when a hot container of its route is idle here now, else null. It records the call. */
  runHere(invocation: FunctionInvocation, record: CallRecord): Promise<FunctionResult> | null;
}

/** Where the all-in-one server puts its runner once started; null elsewhere. */
export interface LocalFunctionHost {
  runner: LocalFunctionRunner | null;
}

/** What became of a call: an async one was accepted (no reply yet), a sync one answered. */
export interface InvokedCall {
  callId: string;
  route: Route;
  /** The sync call's answer; null for an accepted async call. */
  reply: CallReply | null;
}

/**
 * Calls of /r/: let in by CallAdmission, then queued for the runners. Async ones are answered
 * at once, sync ones wait for the result (one round trip to queue, the answer by pub/sub) — or
 * run in this process when its own runner takes calls of the route (a hot container idle or
 * about to come free).
 */
export class FunctionCalls {
  constructor(
    private readonly admission: CallAdmission,
    private readonly calls: CallStore,
    private readonly queue: CallQueue,
    private readonly replies: CallReplies,
    private readonly metrics: FunctionMetrics,
    private readonly options: FunctionCallsOptions,
    private readonly local: LocalFunctionHost = { runner: null },
  ) {}

  /** One call of a function: admitted (404, 401, 403, 413 otherwise), then accepted (async) or answered (sync). */
  async invoke(call: IncomingCall): Promise<InvokedCall> {
    const started = performance.now();
    const admitted = await this.admission.admit(call);
    const { app, route, callId } = admitted;
    const { method, requestUrl, headers, body } = call;
    const invocation = invocationOf(admitted, { callId, method, requestUrl, headers, body });
    if (route.type === 'async') {
      await this.startAsync(invocation, app.projectId);
      this.metrics.accepted(route.format);
      return { callId, route, reply: null };
    }
    const reply = await this.runSync(invocation, app.projectId);
    this.metrics.answered(route.format, reply.outcome, (performance.now() - started) / 1000);
    return { callId, route, reply };
  }

  private async record(invocation: FunctionInvocation, projectId: string, type: RouteType): Promise<void> {
    await this.calls.create(recordOf(invocation, projectId, type));
  }

  /** The record and the message go out together: one connection keeps them in order, record first. */
  private async recordAndQueue(
    invocation: FunctionInvocation,
    projectId: string,
    type: RouteType,
    message: string,
  ): Promise<void> {
    const owner = { appName: invocation.appName, projectId };
    await Promise.all([
      this.record(invocation, projectId, type),
      this.queue.push(this.options.cluster, owner, message),
    ]);
  }

  /** Queues an admitted async call; it gives its place among the project's queued calls back when that fails. */
  private async startAsync(invocation: FunctionInvocation, projectId: string): Promise<void> {
    try {
      await this.recordAndQueue(invocation, projectId, 'async', encodeCallMessage({ invocation }));
    } catch (error) {
      await this.calls.leftQueue(projectId);
      throw error;
    }
  }

  private async runSync(invocation: FunctionInvocation, projectId: string): Promise<CallReply> {
    const here = this.local.runner?.runHere(invocation, recordOf(invocation, projectId, 'sync'));
    if (here) {
      const { outcome, status, headers, body, errorMessage } = await here;
      return { callId: invocation.callId, outcome, status, headers, body, errorMessage };
    }
    const { cluster, queueWaitMs, graceMs } = this.options;
    const wait = this.replies.expect(invocation.callId, queueWaitMs + invocation.timeoutMs + graceMs);
    const message = encodeCallMessage({ invocation, replyTo: this.replies.channel, startBy: Date.now() + queueWaitMs });
    try {
      await this.recordAndQueue(invocation, projectId, 'sync', message);
    } catch (error) {
      wait.cancel();
      throw error;
    }
    const reply = await wait.reply;
    if (reply) return reply;
    const notTaken = await this.queue.withdraw(cluster, { appName: invocation.appName, projectId }, message);
    const errorMessage = notTaken ? 'No runner took the call in time' : 'The call did not finish in time';
    await this.calls.finish(invocation.appName, invocation.callId, 'timeout', errorMessage, '');
    return {
      callId: invocation.callId,
      outcome: 'timeout',
      status: 504,
      headers: {},
      body: Buffer.alloc(0),
      errorMessage,
    };
  }
}

function recordOf(invocation: FunctionInvocation, projectId: string, type: RouteType): CallRecord {
  return {
    id: invocation.callId,
    appName: invocation.appName,
    path: invocation.path,
    projectId,
    format: invocation.format,
    type,
    status: 'queued',
    createdAt: Date.now(),
    startedAt: null,
    completedAt: null,
    error: null,
  };
}
