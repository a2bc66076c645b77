import { fail } from '../core/errors.js';
import { execTransaction } from '../core/lua.js';
import { isUtf8 } from 'node:buffer';
import type { ProjectBudget } from '../core/project-budget.js';
import type { KeySpace, RedisClient } from '../core/redis.js';
import { STORED_BYTES_COUNTED, byteQuotaReached, countQuotaReached } from '../auth/quotas.js';
import { ProjectStorage } from '../auth/stored-bytes.js';
import {
  CACHES_PER_PAGE,
  checkAmount,
  checkedValue,
  encodeValue,
  putCondition,
  type EncodedValue,
  type PutCondition,
} from './item-rules.js';
import { CacheKeys } from './keys.js';
import { scripts } from './scripts.js';

export interface StoredItem {
  /**
   * The value as JSON text, exactly as stored (integers keep all 64 bits); a large value as its
   * UTF-8 bytes as stored (when they are well-formed UTF-8), never decoded here.
   */
  json: string | Buffer;
  cas: number;
  /** When the item expires (epoch ms); null when it never does. */
  expiresAt: number | null;
  /** Memcached flags (an unsigned 32-bit integer, 0 when none were given). */
  flags: number;
}

export interface NewItem {
  /** The value's JSON text, or its UTF-8 bytes (a large value, as read: never decoded here). */
  json: string | Buffer;
  /** Seconds until the item expires; 0 keeps it until it is deleted. */
  expiresIn: number;
  condition: PutCondition;
  /** Memcached flags stored with the item (absent or 0: none). */
  flags?: number;
}

/** A put as a client asks it: the value, its expiry in seconds (0: none) and its condition's fields. */
export interface PutRequest {
  value: unknown;
  /** The value as stored and its size, when the request's parse worked them out (a large body); else encoded here. */
  encoded?: EncodedValue | null;
  expiresIn: number;
  add?: boolean;
  replace?: boolean;
  cas?: unknown;
  flags?: number;
}

/** What a project's caches may hold: its stored_bytes (shared with code archives) and caches quotas. */
export interface CacheQuotas {
  storedBytes: number;
  caches: number;
}

/**
 * From this many bytes a value goes to Redis beside the script that checks its put, not through
 * it (CacheStore's putApart).
 */
const APART_VALUE_BYTES = 64 * 1024;

/** get.lua's reply: the value (or '' when left out), cas, expiry ('' when none), flags, and a value left out's length. */
type GetReply = [string, string, string, string] | [string, string, string, string, number];

type Arg = string | number;
type QuotaRefusal = ['caches_quota'] | ['bytes_quota'];
type PutOutcome = ['stored', number] | ['kept'] | ['missing'] | ['cas_mismatch'] | QuotaRefusal;

/** What a put did: stored the item (with its new cas), or kept it as it was (add, replace). */
export type PutResult = { stored: true; cas: number } | { stored: false };
type IncrementOutcome =
  ['ok', string] | ['not_numeric'] | ['not_integer'] | ['out_of_range'] | ['overflow'] | QuotaRefusal;

function quotaRefusal(outcome: QuotaRefusal[0], quotas: CacheQuotas): Error {
  return outcome === 'caches_quota'
    ? countQuotaReached('caches', quotas.caches, 'caches')
    : byteQuotaReached('stored_bytes', quotas.storedBytes, STORED_BYTES_COUNTED);
}

function isQuotaRefusal(outcome: string): outcome is QuotaRefusal[0] {
  return outcome === 'caches_quota' || outcome === 'bytes_quota';
}

const PUT_REFUSALS: Record<'missing' | 'cas_mismatch', 'put_cas_item_missing' | 'put_cas_mismatch'> = {
  missing: 'put_cas_item_missing',
  cas_mismatch: 'put_cas_mismatch',
};

const INCREMENT_REFUSALS: Record<
  Exclude<IncrementOutcome[0], 'ok' | QuotaRefusal[0]>,
  'increment_not_numeric' | 'increment_not_integer' | 'increment_out_of_range' | 'increment_overflow'
> = {
  not_numeric: 'increment_not_numeric',
  not_integer: 'increment_not_integer',
  out_of_range: 'increment_out_of_range',
  overflow: 'increment_overflow',
};

/** Named caches of key/value items in Redis. Knows nothing of HTTP or of who may call. */
export class CacheStore {
  private readonly cacheKeys: CacheKeys;
  private readonly storage: ProjectStorage;
  /** Projects known to be registered for sweeping, so the registration is sent once. */
  private readonly registered = new Set<string>();

  /**
   * `budget`: where a large value's read is paid before it is read (ProjectBudget.spendInBackground:
   * the project's byte rate, then a turn of the event loop of its own), as its write is by the
   * large-body gate; none in tools and tests that read unpaced.
   */
  constructor(
    private readonly redis: RedisClient,
    keys: KeySpace,
    private readonly budget: Pick<ProjectBudget, 'spendInBackground'> | null = null,
  ) {
    this.cacheKeys = new CacheKeys(keys);
    this.storage = new ProjectStorage(redis, keys);
  }

  /** Names of the project's caches, by name, `CACHES_PER_PAGE` per page. */
  async listCaches(projectId: string, page: number): Promise<string[]> {
    const [names] = this.cacheKeys.projectIndexes(projectId);
    const first = page * CACHES_PER_PAGE;
    return this.redis.zrange(names, first, first + CACHES_PER_PAGE - 1);
  }

  /** The number of live items of a cache; null when there is no such cache. */
  async size(projectId: string, cacheName: string): Promise<number | null> {
    const [names] = this.cacheKeys.projectIndexes(projectId);
    const keys = [...this.cacheKeys.cacheItems(projectId, cacheName), names];
    const size = await scripts.size.run<number>(this.redis, keys, [cacheName]);
    return size < 0 ? null : size;
  }

  /** Removes every item; the cache stays, with size 0. False when there is no such cache. */
  async clear(projectId: string, cacheName: string): Promise<boolean> {
    return this.dropItems(projectId, cacheName, 'clear');
  }

  /** Removes the cache and its items. False when there is no such cache. */
  async deleteCache(projectId: string, cacheName: string): Promise<boolean> {
    return this.dropItems(projectId, cacheName, 'delete');
  }

  private async dropItems(projectId: string, cacheName: string, mode: 'clear' | 'delete'): Promise<boolean> {
    const keys = this.cacheKeys.itemScriptKeys(projectId, cacheName);
    return (await scripts.dropItems.run<number>(this.redis, keys, [cacheName, mode])) === 1;
  }

  /**
   * Stores a value as a put request asks (item-rules: the condition from add, replace and cas,
   * the value's size within `limits.maxValueBytes`); see put.
   */
  async putValue(
    projectId: string,
    cacheName: string,
    key: string,
    request: PutRequest,
    limits: CacheQuotas & { maxValueBytes: number },
  ): Promise<PutResult> {
    const condition = putCondition(request);
    const { encoded, value } = request;
    const json = encoded ? checkedValue(encoded, limits.maxValueBytes).json : encodeValue(value, limits.maxValueBytes);
    const item = { json, expiresIn: request.expiresIn, condition, flags: request.flags };
    return this.put(projectId, cacheName, key, item, limits);
  }

  /**
   * Stores an item under its condition. An add that meets a live item, or a replace that meets
   * none, leaves the item as it was; a cas that matches no item is a 404/409.
   */
  async put(projectId: string, cacheName: string, key: string, item: NewItem, quotas: CacheQuotas): Promise<PutResult> {
    if (item.expiresIn > 0) await this.registerForSweeping(projectId);
    const { condition, json } = item;
    const keys = this.cacheKeys.itemScriptKeys(projectId, cacheName);
    // put.lua's arguments after the cache name, the item key and the value.
    const rest = [
      condition.kind === 'always' ? '' : condition.kind,
      condition.kind === 'cas' ? condition.cas : '',
      item.expiresIn,
      await this.storage.allowance('cache', projectId, quotas.storedBytes),
      quotas.caches,
      item.flags ?? 0,
    ];
    const outcome =
      Buffer.byteLength(json) >= APART_VALUE_BYTES
        ? await this.putApart(keys, [cacheName, key], json, rest)
        : await scripts.put.run<PutOutcome>(this.redis, keys, [cacheName, key, json, ...rest]);
    if (isQuotaRefusal(outcome[0])) throw quotaRefusal(outcome[0], quotas);
    if (outcome[0] === 'stored') return { stored: true, cas: outcome[1] };
    if (outcome[0] === 'kept') return { stored: false };
    throw fail(PUT_REFUSALS[outcome[0]]);
  }

  /**
   * A large value's put, one MULTI: put.lua given the value's length only, the HSETNX that writes
   * the value where put.lua left its field empty, and unhold.lua (see put.lua). Redis copies the
   * value once, into the hash. Through the script, Lua hashed every byte of it to make it a string
   * (about 1.5 ms a MiB) and copied it twice more, while every other tenant's command waited. The
   * checks and the write stay one atomic step.
   */
  private async putApart(keys: string[], [cacheName, key]: [string, string], json: string | Buffer, rest: Arg[]) {
    const [values] = keys as [string];
    const transaction = this.redis.multi();
    scripts.put.queueIn(transaction, keys, [cacheName, key, '', ...rest, Buffer.byteLength(json)]);
    transaction.hsetnx(values, key, json);
    scripts.unhold.queueIn(transaction, [values], [key]);
    const [outcome] = await execTransaction(transaction);
    return outcome as PutOutcome;
  }

  /**
   * A live item, or null. A value of APART_VALUE_BYTES or more is not read through get.lua, which
   * would hold Redis while Lua copies it: get.lua tells its length, the project pays those bytes
   * (the budget), then one MULTI reads the item again, get.lua for the rest and an HGET for the
   * value's bytes, which are answered as they are (a decode to text and an encode back to bytes
   * cost the event loop every tenant shares several copies of the value into fresh memory).
   */
  async get(projectId: string, cacheName: string, key: string): Promise<StoredItem | null> {
    const keys = this.cacheKeys.itemRead(projectId, cacheName);
    const found = await scripts.get.run<GetReply | null>(this.redis, keys, [key, APART_VALUE_BYTES]);
    if (found?.length !== 5) return found && storedItem(found[0], found);
    await this.budget?.spendInBackground(projectId, found[4]);
    const transaction = this.redis.multi();
    scripts.get.queueIn(transaction, keys, [key, 0]);
    transaction.hgetBuffer(keys[0]!, key);
    const [again, bytes] = (await execTransaction(transaction)) as [GetReply | null, Buffer | null];
    // Bytes a decode would change (not well-formed UTF-8) are answered as the decoded text always was.
    return again && bytes !== null ? storedItem(isUtf8(bytes) ? bytes : bytes.toString(), again) : null;
  }

  /** Adds `amount` (a safe integer, else 400) atomically and returns the resulting integer as decimal text. */
  async increment(
    projectId: string,
    cacheName: string,
    key: string,
    amount: number,
    quotas: CacheQuotas,
  ): Promise<string> {
    checkAmount(amount);
    const allowance = await this.storage.allowance('cache', projectId, quotas.storedBytes);
    const outcome = await scripts.increment.run<IncrementOutcome>(
      this.redis,
      this.cacheKeys.itemScriptKeys(projectId, cacheName),
      [cacheName, key, String(amount), allowance, quotas.caches],
    );
    if (isQuotaRefusal(outcome[0])) throw quotaRefusal(outcome[0], quotas);
    if (outcome[0] !== 'ok') throw fail(INCREMENT_REFUSALS[outcome[0]]);
    return outcome[1];
  }

  /** Deletes an item; false when there was no live item to delete. */
  async deleteItem(projectId: string, cacheName: string, key: string): Promise<boolean> {
    const keys = this.cacheKeys.itemScriptKeys(projectId, cacheName);
    return (await scripts.deleteItem.run<number>(this.redis, keys, [cacheName, key])) === 1;
  }

  /** Reclaims up to `limit` expired items of a cache; returns how many. */
  async sweepCache(projectId: string, cacheName: string, limit: number): Promise<number> {
    const keys = this.cacheKeys.itemScriptKeys(projectId, cacheName);
    return scripts.sweep.run<number>(this.redis, keys, [cacheName, limit]);
  }

  /** Caches of a project whose first expiry is at or before `now`. */
  async dueCaches(projectId: string, now: number, limit: number): Promise<string[]> {
    const [, due] = this.cacheKeys.projectIndexes(projectId);
    return this.redis.zrangebyscore(due, '-inf', now, 'LIMIT', 0, limit);
  }

  /** One SSCAN step over the projects that have stored expiring items. */
  async scanSweptProjects(cursor: string): Promise<[string, string[]]> {
    return this.redis.sscan(this.cacheKeys.sweptProjects(), cursor, 'COUNT', 200);
  }

  // Written before the item, so a crash in between leaves a harmless registration, never an
  // expiring item the sweeper cannot find. Registrations are kept: one set member per project.
  private async registerForSweeping(projectId: string): Promise<void> {
    if (this.registered.has(projectId)) return;
    await this.redis.sadd(this.cacheKeys.sweptProjects(), projectId);
    this.registered.add(projectId);
  }
}

function storedItem(json: string | Buffer, [, cas, expiresAt, flags]: GetReply): StoredItem {
  return { json, cas: Number(cas), expiresAt: expiresAt === '' ? null : Number(expiresAt), flags: Number(flags) };
}
