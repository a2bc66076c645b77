import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CacheStore, type CacheQuotas, type NewItem } from '../../../src/cache/cache-store.js';
import { CacheKeys } from '../../../src/cache/keys.js';
import { scripts } from '../../../src/cache/scripts.js';
import { itemJson } from '../../../api/cache/views.js';
import { EventBus } from '../../../src/core/bus.js';
import { MessageQueue } from '../../../src/mq/message-queue.js';
import type { QueueRef } from '../../../src/mq/scripts.js';
import { releaseLua } from '../../helpers/release-lua.js';
import { useSharedRedis } from '../../helpers/shared-redis.js';

// Large values reach Redis beside the script that checks their write, not through it: a cache
// value of 64 KiB or more by a MULTI of put.lua (given its length), an HSETNX and unhold.lua; a
// post's chunk of 64 KiB of bodies or more by a MULTI of an HSET and post-messages.lua (given
// their lengths). Every outcome, every byte counted and what is stored must be what the values
// going through the script gave, each value byte for byte, and the earlier release beside it
// reads them as its own.
const shared = useSharedRedis();
const silent = { info: () => undefined, warn: () => undefined };
const ROOMY: CacheQuotas = { storedBytes: 100_000_000, caches: 100 };

/** About 1 MiB of JSON text: multi-byte characters, a pair, escapes, quotes. */
const TEXT = 'é ☃ 😀 "q" \\ / \n\t\u2028 \u0001 '.repeat(38_000);
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const item = (value: Buffer | string, more: Partial<NewItem> = {}): NewItem => ({
  json: value,
  expiresIn: 0,
  condition: { kind: 'always' },
  ...more,
});

const store = () => new CacheStore(shared.redis, shared.keys);
const keysOf = (project: string) => new CacheKeys(shared.keys).itemScriptKeys(project, 'c');

/** What the cache keeps of a project beside its values: cas, counts, indexes (expiry, names, due, bytes, stored). */
async function bookkeeping(project: string) {
  const [values, cas, expiry, names, due, , bytes, stored, flags] = keysOf(project) as string[];
  return {
    fields: await shared.redis.hkeys(values!),
    cas: await shared.redis.hkeys(cas!),
    expiry: await shared.redis.zrange(expiry!, 0, -1),
    names: await shared.redis.zrange(names!, 0, -1),
    due: await shared.redis.zrange(due!, 0, -1),
    bytes: await shared.redis.hgetall(bytes!),
    stored: await shared.redis.get(stored!),
    flags: await shared.redis.hgetall(flags!),
  };
}

describe('a large cache value', () => {
  it('is read back byte for byte, put as bytes or as text, and counted as its JSON text', async () => {
    const cache = store();
    const bytes = json(TEXT);
    expect(bytes.length).toBeGreaterThan(1_000_000);
    await cache.put('big', 'c', 'bytes', item(bytes), ROOMY);
    await cache.put('big', 'c', 'text', item(bytes.toString()), ROOMY);
    for (const key of ['bytes', 'text']) {
      const read = (await cache.get('big', 'c', key))!;
      expect(Buffer.from(read.json).equals(bytes)).toBe(true);
      expect(JSON.parse(read.json.toString())).toBe(TEXT);
    }
    const { bytes: counted, stored } = await bookkeeping('big');
    expect(counted).toEqual({ c: String(2 * bytes.length + 'bytes'.length + 'text'.length) });
    expect(stored).toBe(counted.c);
  });

  it('meets every condition and quota as a small one does, and leaves no trace when it stores nothing', async () => {
    const cache = store();
    const value = json(TEXT);
    for (const [project, payload, grown] of [
      ['small', json('x'), json('xy')],
      ['large', value, json(`${TEXT}y`)],
    ] as const) {
      expect(await cache.put(project, 'c', 'k', item(payload, { condition: { kind: 'replace' } }), ROOMY)).toEqual({
        stored: false,
      });
      await expect(
        cache.put(project, 'c', 'k', item(payload, { condition: { kind: 'cas', cas: '1' } }), ROOMY),
      ).rejects.toMatchObject({ statusCode: 404 });
      await expect(cache.put(project, 'c', 'k', item(payload), { storedBytes: 1, caches: 100 })).rejects.toMatchObject({
        statusCode: 413,
      });
      await expect(
        cache.put(project, 'other', 'k', item(payload), { storedBytes: 1e9, caches: 1 }),
      ).rejects.toMatchObject({ statusCode: 403 });
      expect(await bookkeeping(project)).toMatchObject({ fields: [], cas: [], bytes: {}, names: ['c'] });
      const first = await cache.put(project, 'c', 'k', item(payload, { condition: { kind: 'add' }, flags: 7 }), ROOMY);
      expect(await cache.put(project, 'c', 'k', item(json('y'), { condition: { kind: 'add' } }), ROOMY)).toEqual({
        stored: false,
      });
      const stale = { condition: { kind: 'cas' as const, cas: '999999' } };
      await expect(cache.put(project, 'c', 'k', item(payload, stale), ROOMY)).rejects.toMatchObject({
        statusCode: 409,
      });
      await expect(cache.put(project, 'c', 'k', item(grown), { storedBytes: 1, caches: 100 })).rejects.toMatchObject({
        statusCode: 413,
      });
      const read = (await cache.get(project, 'c', 'k'))!;
      expect({ stored: first.stored, same: Buffer.from(read.json).equals(payload), flags: read.flags }).toEqual({
        stored: true,
        same: true,
        flags: 7,
      });
      const current = { condition: { kind: 'cas' as const, cas: String(read.cas) }, expiresIn: 60 };
      expect(await cache.put(project, 'c', 'k', item(payload, current), ROOMY)).toMatchObject({ stored: true });
    }
    const small = await bookkeeping('small');
    const large = await bookkeeping('large');
    const grown = String(Number(small.stored) + value.length - json('x').length);
    expect(large).toEqual({ ...small, bytes: { c: grown }, stored: grown });
  });
});

describe('a large cache value read', () => {
  /** The bytes each project paid before its reads (a ProjectBudget's part the store calls). */
  const paidBudget = () => {
    const paid: Array<[string, number]> = [];
    return { paid, spendInBackground: async (project: string, bytes: number) => void paid.push([project, bytes]) };
  };

  it('comes beside get.lua, not through it, paid on the project budget first; a small one is neither', async () => {
    const budget = paidBudget();
    const cache = new CacheStore(shared.redis, shared.keys, budget);
    const value = json(TEXT);
    await cache.put('reads', 'c', 'large', item(value, { flags: 3, expiresIn: 600 }), ROOMY);
    await cache.put('reads', 'c', 'small', item(json('s')), ROOMY);
    const reply = await scripts.get.run<unknown[]>(shared.redis, new CacheKeys(shared.keys).itemRead('reads', 'c'), [
      'large',
      64 * 1024,
    ]);
    expect([reply[0], reply[3], reply[4]]).toEqual(['', '3', value.length]);
    const large = (await cache.get('reads', 'c', 'large'))!;
    expect(Buffer.from(large.json).equals(value)).toBe(true);
    expect(large).toMatchObject({ flags: 3, expiresAt: expect.any(Number) });
    expect((await cache.get('reads', 'c', 'small'))!.json).toBe('"s"');
    expect(budget.paid).toEqual([['reads', value.length]]);
  });

  it('reads the item as the MULTI finds it: a large item gone by then is none', async () => {
    const budget = paidBudget();
    const cache = new CacheStore(shared.redis, shared.keys, {
      spendInBackground: async (project, bytes) => {
        await budget.spendInBackground(project, bytes);
        await cache.deleteItem(project, 'c', 'k');
      },
    });
    await cache.put('gone', 'c', 'k', item(json(TEXT)), ROOMY);
    expect(await cache.get('gone', 'c', 'k')).toBeNull();
    expect(budget.paid).toHaveLength(1);
    expect(await cache.get('gone', 'c', 'k')).toBeNull();
    expect(budget.paid).toHaveLength(1);
  });

  it('reads the value the MULTI finds when it was replaced by a small one meanwhile', async () => {
    const cache = new CacheStore(shared.redis, shared.keys, {
      spendInBackground: async (project) => {
        await store().put(project, 'c', 'k', item(json('now small'), { flags: 9 }), ROOMY);
      },
    });
    await cache.put('shrunk', 'c', 'k', item(json(TEXT)), ROOMY);
    const read = (await cache.get('shrunk', 'c', 'k'))!;
    expect({ json: read.json.toString(), flags: read.flags }).toEqual({ json: '"now small"', flags: 9 });
  });

  it('is answered byte for byte as the decoded text was, bytes that are not UTF-8 as their decoding', async () => {
    const cache = store();
    const value = json(TEXT);
    await cache.put('answer', 'c', 'k', item(value), ROOMY);
    const read = (await cache.get('answer', 'c', 'k'))!;
    expect(Buffer.isBuffer(read.json)).toBe(true);
    const asText = Buffer.from(itemJson('c', 'k', { ...read, json: read.json.toString() }));
    expect(Buffer.from(itemJson('c', 'k', read)).equals(asText)).toBe(true);
    const broken = Buffer.concat([value.subarray(0, 100_000), Buffer.from([0xff, 0xc3]), Buffer.from('"')]);
    await shared.redis.hset(new CacheKeys(shared.keys).itemRead('answer', 'c')[0]!, 'k', broken);
    expect((await cache.get('answer', 'c', 'k'))!.json).toBe(broken.toString());
  });
});

// Release f89fce9's own scripts, read from git: its cache keys and its queue's.
const oldCache = (name: string) => releaseLua('f89fce9', 'src/cache', name, ['src/cache', 'src/core']);
const oldMq = (name: string) => releaseLua('f89fce9', 'src/mq', name, ['src/mq', 'src/core/clock.lua']);

describe('beside release f89fce9', () => {
  const oldKeys = (project: string) => {
    const tag = `{cache:${project}}`;
    const [values, cas, expiry] = new CacheKeys(shared.keys).cacheItems(project, 'c');
    const indexes = ['names', 'live', 'due', 'cas-sequence'].map((part) => shared.keys.of(tag, part));
    return [values!, cas!, expiry!, ...indexes];
  };

  it('reads a large value stored here as its own, and this release reads what it stores over it', async () => {
    const cache = store();
    const value = json(TEXT);
    await cache.put('beside', 'c', 'k', item(value), ROOMY);
    const [theirs] = (await oldCache('get').run<[string]>(shared.redis, oldKeys('beside').slice(0, 3), ['k']))!;
    expect(Buffer.from(theirs).equals(value)).toBe(true);
    const again = json(`${TEXT}again`);
    await oldCache('put').run(shared.redis, oldKeys('beside'), ['c', 'k', again, '', '', 0]);
    expect(Buffer.from((await cache.get('beside', 'c', 'k'))!.json).equals(again)).toBe(true);
  });
});

describe('a post of large bodies', () => {
  let mq: MessageQueue;
  beforeAll(() => {
    const bus = new EventBus(shared.connect('subscriber'), shared.redis);
    // Storage flags off (plain_messages): what this release writes then, f89fce9 reserves.
    const features = { enabled: () => false };
    mq = new MessageQueue({ redis: shared.redis, keys: shared.keys, bus, log: silent, minTimeoutSeconds: 1, features });
  });
  afterAll(() => mq?.close());
  const queue = (name: string): QueueRef => ({ projectId: 'large', name });
  const bodyKey = (ref: QueueRef) => mq.keys.queue(ref)[5]!;

  it('stores each body byte for byte, as bytes or text, counted; a refused post leaves none', async () => {
    const ref = queue('bodies');
    const bodies = Array.from({ length: 7 }, (_, i) => `${i}:${TEXT.slice(0, 90_000)}`);
    const ids = await mq.post(ref, [
      ...bodies.slice(0, 4).map((body) => ({ body: Buffer.from(body) })),
      ...bodies.slice(4).map((body) => ({ body })),
    ]);
    const stored = await shared.redis.hmgetBuffer(bodyKey(ref), ...ids);
    expect(stored.map((body) => body!.toString())).toEqual(bodies);
    const bytes = bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0);
    expect(await shared.redis.hget(mq.keys.queue(ref)[0]!, 'bytes')).toBe(String(bytes));
    const reply = await oldMq('reserve').run<string>(shared.redis, mq.keys.queue(ref), [7, 30, '0', 'old', 60]);
    expect((JSON.parse(reply) as { messages: [string, string][] }).messages.map(([, body]) => body)).toEqual(bodies);

    const refused = queue('refused');
    await expect(
      mq.post(
        refused,
        bodies.map((body) => ({ body })),
        { queueBytes: bytes - 1, storedBytes: 1e9, queues: 10 },
      ),
    ).rejects.toMatchObject({ statusCode: 413 });
    expect(await shared.redis.exists(bodyKey(refused))).toBe(0);
  });
});
