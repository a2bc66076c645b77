import type { RedisClient } from '../../src/core/redis.js';
import type { Logger } from 'pino';
import type { EventBus } from '../../src/core/bus.js';
import { FailureLog } from '../../src/core/failure-log.js';
import { sleep } from '../../src/core/time.js';
import { decodeCallMessage, type CallMessage } from '../../src/functions/calls/call-message.js';
import { CallRecordBatch } from '../../src/functions/calls/call-record-batch.js';
import type { FunctionStores } from '../../src/functions/services.js';
import type {
  FunctionExecutor,
  FunctionInvocation,
  FunctionResult,
} from '../../src/functions/calls/function-executor.js';
import { goneRouteOf, type RouteGone } from '../../src/functions/routes/route-notices.js';
import type { FunctionImageGate } from './image-gate.js';

export interface FunctionWorkerOptions {
  cluster: string;
  runnerId: string;
  /** Most calls run at once. */
  slots: number;
  /** Most of those slots the calls of one project hold at once, so others' calls still run. */
  projectSlots: number;
  /** Largest answer body a call may give; a larger one is refused (502). */
  maxAnswerBytes: number;
  /** How often the in-flight calls of dead runners are looked for. */
  reclaimEveryMs: number;
  /** How often ended calls' records are written. */
  recordFlushMs: number;
  /** Whether a runner of the cluster still heartbeats. */
  isAlive(runnerId: string): Promise<boolean>;
}

/** `default` calls run cold; `http`, `json` and `http-stream` through the hot pool. */
export interface FunctionExecutors {
  /** Whether the call's project may run its image (private images); none: any image on the engine runs. */
  images?: FunctionImageGate;
  cold: FunctionExecutor;
  hot: FunctionExecutor & {
    /** Whether a call of this route may run here now, without the queue (see HotFunctionPool). */
    acceptsHere?(invocation: FunctionInvocation): boolean;
    /**
     * A route or app was deleted, or a project suspended or deleted: its hot containers stop
     * (busy ones once their call is done).
     */
    retireRoute?(gone: RouteGone): void;
  };
}

/** How long one wait for calls blocks before the loop looks at its stop flag (and the queue) again. */
const TAKE_WAIT_SECONDS = 1;
const RETRY_AFTER_ERROR_MS = 500;

/** A sync call taken after its start-by time: answered at once rather than left to its caller's wait bound. */
const NOT_TAKEN_IN_TIME: FunctionResult = {
  outcome: 'timeout',
  status: 504,
  headers: {},
  body: Buffer.alloc(0),
  stderr: '',
  errorMessage: 'No runner took the call in time',
};

const unavailable = (errorMessage: string): FunctionResult => ({
  outcome: 'error',
  status: 502,
  headers: {},
  body: Buffer.alloc(0),
  stderr: '',
  errorMessage,
});

/**
 * The runner's side of function calls: takes call messages of its cluster (up to `slots` at
 * once) into its in-flight list, runs each, answers the waiting controller (one PUBLISH), and
 * hands the outcome to a record batch, which drops the message once the record is written, so
 * calls of a runner that dies are re-run by another.
 */
export class FunctionWorker {
  private readonly running = new Set<Promise<void>>();
  /** How many of the running calls each project has. */
  private readonly perProject = new Map<string, number>();
  private stopping = false;
  private loop: Promise<void> | null = null;
  private reclaimTimer: NodeJS.Timeout | null = null;
  private stopNotices: (() => Promise<void>) | null = null;
  private readonly records: CallRecordBatch;
  private takeHealth: FailureLog;
  private reclaimHealth: FailureLog;

  constructor(
    private readonly stores: FunctionStores,
    private readonly bus: EventBus,
    /** A connection of its own: waiting for calls (BLPOP) blocks it. */
    private readonly blocking: RedisClient,
    private readonly executors: FunctionExecutors,
    private readonly options: FunctionWorkerOptions,
    private readonly log: Logger,
  ) {
    this.records = new CallRecordBatch(stores.calls, stores.queue, options.recordFlushMs, (error) =>
      log.error({ err: error }, 'could not record function calls'),
    );
    this.takeHealth = new FailureLog(log, 'taking function calls', RETRY_AFTER_ERROR_MS, 5000);
    this.reclaimHealth = new FailureLog(log, 'reclaiming function calls of stopped runners');
  }

  async start(): Promise<void> {
    await this.stores.queue.hold(this.options.cluster, this.options.runnerId);
    this.stopNotices = await this.bus.subscribe(this.stores.notices.channel, (message) => {
      const gone = goneRouteOf(message);
      if (gone) this.executors.hot.retireRoute?.(gone);
    });
    this.loop = this.takeCalls();
    this.reclaimTimer = setInterval(() => void this.reclaim(), this.options.reclaimEveryMs);
  }

  get busy(): number {
    return this.running.size;
  }

  private async takeCalls(): Promise<void> {
    const { cluster, runnerId, slots } = this.options;
    while (!this.stopping) {
      if (this.running.size >= slots) {
        await Promise.race(this.running);
        continue;
      }
      try {
        const raw = await this.stores.queue.take(cluster, runnerId, this.fullProjects());
        this.takeHealth.succeeded();
        if (raw !== null) this.begin(raw);
        else await this.stores.queue.waitForCalls(this.blocking, cluster, TAKE_WAIT_SECONDS);
      } catch (error) {
        if (this.stopping) break;
        await sleep(this.takeHealth.failed(error));
      }
    }
  }

  /** The projects whose calls hold all the slots one project may hold here: their calls wait. */
  private fullProjects(): string[] {
    const { projectSlots } = this.options;
    return [...this.perProject].filter(([, count]) => count >= projectSlots).map(([project]) => project);
  }

  private begin(raw: string): void {
    let message: CallMessage;
    try {
      message = decodeCallMessage(raw);
    } catch (error) {
      this.log.error({ err: error }, 'dropped a function call message that could not be read');
      void this.stores.queue.done(this.options.cluster, this.options.runnerId, raw).catch(() => {});
      return;
    }
    const project = message.invocation.projectId ?? '';
    this.perProject.set(project, (this.perProject.get(project) ?? 0) + 1);
    const run = this.handle(message, raw).finally(() => {
      this.running.delete(run);
      this.projectCallEnded(project);
    });
    this.running.add(run);
  }

  private projectCallEnded(project: string): void {
    const count = (this.perProject.get(project) ?? 1) - 1;
    if (count > 0) this.perProject.set(project, count);
    else this.perProject.delete(project);
    // Its calls were skipped while it was full: a runner waiting for calls (this one too) looks again.
    if (count + 1 >= this.options.projectSlots && !this.stopping)
      void this.stores.queue.wake(this.options.cluster).catch(() => {});
  }

  private async handle(message: CallMessage, raw: string): Promise<void> {
    try {
      await this.run(message, raw);
    } catch (error) {
      // Redis failed: the message stays in flight and is re-run once this runner is gone.
      this.log.error({ err: error }, 'function call failed');
    }
  }

  private async run({ invocation, replyTo, startBy }: CallMessage, raw: string): Promise<void> {
    const { appName, callId } = invocation;
    const { cluster, runnerId } = this.options;
    const inFlight = { cluster, runnerId, message: raw };
    const startedAt = Date.now();
    if (startBy !== undefined && startedAt > startBy) {
      if (replyTo) await this.bus.publish(replyTo, await this.stores.replyBodies.notice(callId, NOT_TAKEN_IN_TIME));
      this.records.add({
        appName,
        callId,
        outcome: 'timeout',
        error: NOT_TAKEN_IN_TIME.errorMessage,
        log: '',
        startedAt,
        completedAt: startedAt,
        inFlight,
      });
      return;
    }
    // A sync call is guarded by its start-by time (and its project's suspension was checked when it
    // was queued); an async one may be a re-run of a call that ended, or of a suspended project
    // (start-call.lua ends it then).
    if (!replyTo) {
      const { outcome, leftQueue } = await this.stores.calls.start(appName, callId);
      if (leftQueue) await this.stores.calls.leftQueue(invocation.projectId);
      if (outcome !== 'started') {
        await this.stores.queue.done(cluster, runnerId, raw);
        return;
      }
    }
    const result = await this.invoke(invocation);
    if (replyTo) await this.bus.publish(replyTo, await this.stores.replyBodies.notice(callId, result));
    this.record(invocation, result, startedAt, inFlight);
  }

  private record(
    invocation: FunctionInvocation,
    result: FunctionResult,
    startedAt: number,
    inFlight?: { cluster: string; runnerId: string; message: string },
    create?: Parameters<CallRecordBatch['add']>[0]['create'],
  ): void {
    const { stderr, laterLog } = result;
    // A hot call's log is all in laterLog (its stderr is empty): no promise more per call for the join.
    const log = laterLog ? (stderr ? laterLog.then((later) => stderr + later) : laterLog) : stderr;
    this.records.add({
      appName: invocation.appName,
      callId: invocation.callId,
      outcome: result.outcome,
      error: result.errorMessage,
      log,
      startedAt,
      completedAt: Date.now(),
      inFlight,
      create,
    });
  }

  /**
   * Runs a sync call in this process, without the queue, when the hot pool here takes it now
   * (the all-in-one server; see HotFunctionPool.acceptsHere); null when it does not. `create`
   * is the call's record.
   */
  runHere(
    invocation: FunctionInvocation,
    create: NonNullable<Parameters<CallRecordBatch['add']>[0]['create']>,
  ): Promise<FunctionResult> | null {
    if (this.stopping || invocation.format === 'default' || !this.executors.hot.acceptsHere?.(invocation)) return null;
    const startedAt = Date.now();
    return this.invoke(invocation).then((result) => {
      this.record(invocation, result, startedAt, undefined, create);
      return result;
    });
  }

  private async invoke(invocation: FunctionInvocation): Promise<FunctionResult> {
    const executor = invocation.format === 'default' ? this.executors.cold : this.executors.hot;
    try {
      const { images } = this.executors;
      const project = invocation.projectId ?? '';
      // A decision still held takes no await.
      const known = images ? images.known(project, invocation.image) : null;
      const refusal = known !== undefined ? known : await images!.refusal(project, invocation.image);
      if (refusal) return { ...unavailable(refusal), status: 403 };
      const result = await executor.invoke(invocation);
      // No one reads an async call's answer: only sync answers travel, so only they are bounded.
      return invocation.type === 'async' ? result : this.withinAnswerLimit(result);
    } catch (error) {
      this.log.error({ err: error, call: invocation.callId }, 'function executor failed');
      return unavailable(`The function could not be run: ${(error as Error).message}`);
    }
  }

  /** An answer past the limit is replaced by an error naming it (the log is kept). */
  private withinAnswerLimit(result: FunctionResult): FunctionResult {
    const limit = this.options.maxAnswerBytes;
    if (result.body.length <= limit) return result;
    const message = `The function's answer is ${result.body.length} bytes, more than the limit of ${limit} bytes`;
    return { ...unavailable(message), stderr: result.stderr, laterLog: result.laterLog };
  }

  private async reclaim(): Promise<void> {
    try {
      const { cluster, runnerId, isAlive } = this.options;
      const moved = await this.stores.queue.reclaim(cluster, async (id) => id === runnerId || (await isAlive(id)));
      if (moved > 0) this.log.info({ calls: moved }, 'gave the function calls of stopped runners back to the queue');
      this.reclaimHealth.succeeded();
    } catch (error) {
      this.reclaimHealth.failed(error);
    }
  }

  /** Takes no new call, lets running ones finish for up to `drainMs`, gives back what is left. */
  async stop(drainMs: number): Promise<void> {
    this.stopping = true;
    if (this.reclaimTimer) clearInterval(this.reclaimTimer);
    await this.stopNotices?.().catch(() => {});
    this.blocking.disconnect();
    await this.loop;
    await Promise.race([Promise.all(this.running), sleep(drainMs)]);
    await Promise.all([this.executors.cold.close(), this.executors.hot.close()]);
    await this.records.flush().catch(() => {});
    await this.stores.queue.giveBack(this.options.cluster, this.options.runnerId).catch(() => 0);
  }
}
