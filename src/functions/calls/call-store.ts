import { boundedRelease } from '../../core/bounded-counter.js';
import { ERRORS } from '../../core/errors.js';
import type { RedisClient } from '../../core/redis.js';
import { zsetMembers } from '../../auth/project-lifecycle.js';
import { MOST_RECORD_BYTES, storedSize, type CallBytes } from './call-bytes.js';
import type { FunctionKeys } from '../keys.js';
import { scripts } from '../scripts.js';
import type { CallOutcome, CallRecord, CallStatus, RouteFormat, RouteType } from '../types.js';

/** A call that ended before it was ever recorded: its whole record, and its log. */
export interface EndedCallRecord {
  record: CallRecord;
  log: string;
}

export interface CallPage {
  calls: CallRecord[];
  /** Pass as `cursor` for the next (older) page; undefined on the last page. */
  nextCursor: string | undefined;
}

/** The smallest id made at `ms` or later: ids begin with their creation second in hex. */
function firstIdAt(ms: number): string {
  return Math.max(0, Math.floor(ms / 1000))
    .toString(16)
    .padStart(8, '0');
}

/** The fields of a call's record as its hash holds them (times and error only once set). */
function fieldsOf(call: CallRecord): Record<string, string> {
  const fields: Record<string, string> = {
    id: call.id,
    app_name: call.appName,
    path: call.path,
    project_id: call.projectId,
    format: call.format,
    type: call.type,
    status: call.status,
    created_at: String(call.createdAt),
  };
  if (call.startedAt !== null) fields.started_at = String(call.startedAt);
  if (call.completedAt !== null) fields.completed_at = String(call.completedAt);
  if (call.error) fields.error = call.error;
  return fields;
}

function recordOf(hash: Record<string, string>): CallRecord | null {
  if (!hash.id) return null;
  const time = (value: string | undefined) => (value ? Number(value) : null);
  return {
    id: hash.id,
    appName: hash.app_name ?? '',
    path: hash.path ?? '',
    projectId: hash.project_id ?? '',
    format: hash.format as RouteFormat,
    type: hash.type as RouteType,
    status: hash.status as CallStatus,
    createdAt: Number(hash.created_at),
    startedAt: time(hash.started_at),
    completedAt: time(hash.completed_at),
    error: hash.error ?? null,
  };
}

/**
 * Call records and their stderr logs, kept for `retentionMs` after the call was made; the
 * per-app index (newest first) drops ids older than that as new calls arrive.
 */
/** The error of a call refused because its project (or the project's owner) is suspended. */
export const SUSPENDED_MESSAGE = ERRORS.fn_call_project_suspended.message;

export class CallStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FunctionKeys,
    private readonly retentionMs: number,
    private readonly maxLogBytes: number,
    /** The project's stored_bytes share of call records and logs. */
    readonly bytes: CallBytes,
  ) {}

  /** The most bytes one call's record and log may count toward its project's stored_bytes. */
  get maxCallBytes(): number {
    return MOST_RECORD_BYTES + this.maxLogBytes;
  }

  async create(call: CallRecord): Promise<void> {
    const key = this.keys.call(call.appName, call.id);
    const index = this.keys.callIndex(call.appName);
    const fields = fieldsOf(call);
    // Counted alongside (another hash tag): a record whose write failed is counted until its entry expires.
    await Promise.all([
      this.redis
        .multi()
        .hset(key, fields)
        .pexpire(key, this.retentionMs)
        .zadd(index, 0, call.id)
        .zremrangebylex(index, '-', `(${firstIdAt(call.createdAt - this.retentionMs)}`)
        .pexpire(index, this.retentionMs)
        .exec(),
      this.bytes.count(call.projectId, [{ appName: call.appName, callId: call.id, bytes: storedSize(fields, '') }]),
    ]);
  }

  /**
   * Starts a call: 'started', 'over' (already ended or gone) or 'suspended' (ended as an error
   * now). For an async call, `leftQueue` says it was waiting until now, so it no longer counts
   * toward its project's queued calls (see leftQueue).
   */
  async start(
    appName: string,
    callId: string,
  ): Promise<{ outcome: 'started' | 'over' | 'suspended'; leftQueue: boolean }> {
    const [outcome, wasQueued] = await scripts.startCall.run<[number, number]>(
      this.redis,
      [this.keys.call(appName, callId), this.keys.appSuspended(appName)],
      [Date.now(), SUSPENDED_MESSAGE],
    );
    return { outcome: outcome === 1 ? 'started' : outcome === -1 ? 'suspended' : 'over', leftQueue: wasQueued === 1 };
  }

  /** An async call left the queue (started, ended unstarted, or was never queued after all). */
  async leftQueue(projectId: string): Promise<void> {
    await boundedRelease(this.redis, this.keys.queuedCalls(projectId), 1);
  }

  /**
   * Writes the final records and logs of calls of one app that were never recorded (they ran
   * where they were received), in one script.
   */
  async recordEnded(appName: string, calls: EndedCallRecord[]): Promise<void> {
    if (calls.length === 0) return;
    const keys = [this.keys.callIndex(appName)];
    const records: string[][] = [];
    const logs: string[] = [];
    const counted = new Map<string, { appName: string; callId: string; bytes: number }[]>();
    for (const { record, log: whole } of calls) {
      keys.push(this.keys.call(appName, record.id), this.keys.callLog(appName, record.id));
      const log = this.trimmed(whole);
      const bytes = storedSize(fieldsOf(record), log);
      const ofProject = counted.get(record.projectId);
      if (ofProject) ofProject.push({ appName, callId: record.id, bytes });
      else counted.set(record.projectId, [{ appName, callId: record.id, bytes }]);
      records.push([
        record.id,
        record.path,
        record.projectId,
        record.format,
        record.type,
        record.status,
        String(record.createdAt),
        record.startedAt === null ? '' : String(record.startedAt),
        record.completedAt === null ? '' : String(record.completedAt),
        record.error ?? '',
      ]);
      logs.push(log);
    }
    const args = [
      this.retentionMs,
      firstIdAt(Date.now() - this.retentionMs),
      appName,
      JSON.stringify(records),
      ...logs,
    ];
    // Counted alongside, as create() does: one auto-pipelined write for the batch.
    await Promise.all([
      scripts.recordCalls.run(this.redis, keys, args),
      ...[...counted].map(([projectId, ended]) => this.bytes.count(projectId, ended)),
    ]);
  }

  private trimmed(log: string): string {
    return log.length * 3 > this.maxLogBytes && Buffer.byteLength(log) > this.maxLogBytes
      ? Buffer.from(log).subarray(0, this.maxLogBytes).toString()
      : log;
  }

  /** Records how the call ended, once; false when it had already ended. */
  async finish(
    appName: string,
    callId: string,
    outcome: CallOutcome,
    error: string | undefined,
    log: string,
    times: { startedAt?: number; completedAt?: number } = {},
  ): Promise<boolean> {
    const keys = [this.keys.call(appName, callId), this.keys.callLog(appName, callId)];
    const args = [
      outcome,
      times.completedAt ?? Date.now(),
      error ?? '',
      this.trimmed(log),
      this.retentionMs,
      times.startedAt ?? '',
    ];
    const [finished, projectId, bytes] = await scripts.finishCall.run<[number, string?, number?]>(
      this.redis,
      keys,
      args,
    );
    if (finished !== 1) return false;
    if (projectId) await this.bytes.count(projectId, [{ appName, callId, bytes: bytes ?? 0 }]);
    return true;
  }

  async get(appName: string, callId: string): Promise<CallRecord | null> {
    return recordOf(await this.redis.hgetall(this.keys.call(appName, callId)));
  }

  async log(appName: string, callId: string): Promise<string> {
    return (await this.redis.get(this.keys.callLog(appName, callId))) ?? '';
  }

  /** Newest first: after `cursor` (a call id) when given, else from page `page` (0-based). */
  async list(appName: string, options: { cursor?: string; page: number; perPage: number }): Promise<CallPage> {
    const index = this.keys.callIndex(appName);
    const { cursor, page, perPage } = options;
    const ids = cursor
      ? await this.redis.zrevrangebylex(index, `(${cursor}`, '-', 'LIMIT', 0, perPage)
      : await this.redis.zrevrangebylex(index, '+', '-', 'LIMIT', page * perPage, perPage);
    const records = await Promise.all(ids.map((id) => this.get(appName, id)));
    const calls = records.filter((call): call is CallRecord => call !== null);
    return { calls, nextCursor: ids.length === perPage ? ids[ids.length - 1] : undefined };
  }

  /** Deletes the records and logs of a deleted app's calls, giving their bytes back, then its index. */
  async dropApp(projectId: string, appName: string): Promise<void> {
    const index = this.keys.callIndex(appName);
    for await (const ids of zsetMembers(this.redis, index)) {
      await this.redis.unlink(...ids.flatMap((id) => [this.keys.call(appName, id), this.keys.callLog(appName, id)]));
      await this.bytes.release(projectId, appName, ids);
    }
    await this.redis.unlink(index);
  }
}
