import { STORED_BYTES_COUNTED, byteQuotaReached } from '../../auth/quotas.js';
import type { RedisClient } from '../../core/redis.js';
import type { ProjectStorage } from '../../auth/stored-bytes.js';
import type { FunctionKeys } from '../keys.js';
import { scripts } from '../scripts.js';

/**
 * More than a call record's fields take (ids, names, times, an error message) without its log:
 * the bound admission counts for each call it lets in unread (see CallHeadroom).
 */
export const MOST_RECORD_BYTES = 64 * 1024;

/** One call's record and log as counted: their bytes together. */
export interface CountedCall {
  appName: string;
  callId: string;
  bytes: number;
}

/** The bytes a record (its hash's fields and values) and its log take. */
export function storedSize(fields: Record<string, string>, log: string): number {
  // Measured joined: one byteLength (a call into C++) per record rather than two per field.
  let text = log;
  for (const name in fields) text += name + fields[name]!;
  return Buffer.byteLength(text);
}

function entryOf(appName: string, callId: string): string {
  return `${appName}\n${callId}`;
}

/** 413 naming stored_bytes when the project's calls store `allowance` bytes or more (its quota less what it stores elsewhere). */
export function checkCallRoom(stored: number, allowance: number, quota: number): void {
  if (stored >= allowance) throw byteQuotaReached('stored_bytes', quota, STORED_BYTES_COUNTED);
}

/**
 * The project's call records and logs, counted toward its stored_bytes (count-call-bytes.lua).
 * The records live under each app's hash tag and the counter under the project's, so a record
 * is counted just after it is written: a project may pass its quota by the calls already under
 * way when it reached it (each at most a record and FERRUM_FUNCTIONS_MAX_LOG_BYTES of log).
 */
export class CallBytes {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FunctionKeys,
    private readonly storage: ProjectStorage,
    private readonly retentionMs: number,
  ) {}

  /** Counts (or counts again, at their new size) calls whose records were just written. */
  async count(projectId: string, calls: CountedCall[]): Promise<void> {
    if (calls.length === 0) return;
    const expiresAt = Date.now() + this.retentionMs;
    const set = calls.flatMap((call) => [entryOf(call.appName, call.callId), call.bytes, expiresAt]);
    await this.run(projectId, [calls.length, ...set]);
  }

  /** Gives back the bytes of calls whose records were deleted. */
  async release(projectId: string, appName: string, callIds: string[]): Promise<void> {
    if (callIds.length > 0) await this.run(projectId, [0, ...callIds.map((id) => entryOf(appName, id))]);
  }

  /** 413 naming the quota when the project already stores `quota` bytes or more: a new call would add to them. */
  async checkRoom(projectId: string, quota: number): Promise<void> {
    const [stored, allowance] = await Promise.all([this.run(projectId, [0]), this.allowance(projectId, quota)]);
    checkCallRoom(stored, allowance, quota);
  }

  /** How far the project's calls may grow: the quota less what it stores elsewhere. */
  allowance(projectId: string, quota: number): Promise<number> {
    return this.storage.allowance('calls', projectId, quota);
  }

  /** The keys of the project's counted calls, in the order of counted-calls.lua. */
  countedKeys(projectId: string): string[] {
    return [
      this.storage.counter('calls', projectId),
      this.keys.storedCalls(projectId),
      this.keys.storedCallSizes(projectId),
    ];
  }

  private async run(projectId: string, args: (string | number)[]): Promise<number> {
    return scripts.countCallBytes.run<number>(this.redis, this.countedKeys(projectId), args);
  }
}
