import { describe, expect, it } from 'vitest';
import { CacheStore, type CacheQuotas, type NewItem } from '../../../src/cache/cache-store.js';
import { CacheKeys } from '../../../src/cache/keys.js';
import { checkItemKey, encodeValue, MAX_KEY_BYTES, putCondition } from '../../../src/cache/item-rules.js';
import { scriptClock } from '../../../src/core/lua.js';
import { useSharedRedis } from '../../helpers/shared-redis.js';
import { PREVIOUS_RELEASES, releaseLua } from '../../helpers/release-lua.js';

type Arg = string | number;

// The cache's item rules, straight against src/ on the worker's shared Redis (no HTTP); item
// meta (memcached flags, expiry) also beside the previous releases' own scripts, which know
// nothing of flags.
const shared = useSharedRedis();
const store = () => new CacheStore(shared.redis, shared.keys);
const ROOMY: CacheQuotas = { storedBytes: 1_000_000, caches: 100 };
const item = (value: unknown, more: Partial<NewItem> = {}): NewItem => ({
  json: encodeValue(value, 1_000_000),
  expiresIn: 0,
  condition: { kind: 'always' },
  ...more,
});

describe('cache items: conditions', () => {
  it('add stores only an absent key, replace only a present one; neither changes the other case', async () => {
    const cache = store();
    expect(await cache.put('p1', 'c', 'k', item('first', { condition: { kind: 'replace' } }), ROOMY)).toEqual({
      stored: false,
    });
    expect(await cache.get('p1', 'c', 'k')).toBeNull();
    expect(await cache.put('p1', 'c', 'k', item('first', { condition: { kind: 'add' } }), ROOMY)).toMatchObject({
      stored: true,
    });
    expect(await cache.put('p1', 'c', 'k', item('second', { condition: { kind: 'add' } }), ROOMY)).toEqual({
      stored: false,
    });
    expect((await cache.get('p1', 'c', 'k'))!.json).toBe('"first"');
    await cache.put('p1', 'c', 'k', item('third', { condition: { kind: 'replace' } }), ROOMY);
    expect((await cache.get('p1', 'c', 'k'))!.json).toBe('"third"');
  });

  it('cas stores only over the value it was read with: 409 after a change, 404 on a missing key', async () => {
    const cache = store();
    const first = await cache.put('p1', 'c', 'cas', item(1), ROOMY);
    if (!first.stored) throw new Error('not stored');
    const read = (await cache.get('p1', 'c', 'cas'))!;
    expect(read.cas).toBe(first.cas);
    const second = await cache.put(
      'p1',
      'c',
      'cas',
      item(2, { condition: { kind: 'cas', cas: String(read.cas) } }),
      ROOMY,
    );
    expect(second).toMatchObject({ stored: true });
    await expect(
      cache.put('p1', 'c', 'cas', item(3, { condition: { kind: 'cas', cas: String(read.cas) } }), ROOMY),
    ).rejects.toMatchObject({ statusCode: 409, message: expect.stringMatching(/^cas mismatch/) });
    await expect(
      cache.put('p1', 'c', 'nowhere', item(3, { condition: { kind: 'cas', cas: '1' } }), ROOMY),
    ).rejects.toMatchObject({ statusCode: 404 });
    expect((await cache.get('p1', 'c', 'cas'))!.json).toBe('2');
  });

  it('reads the put condition from add, replace and cas, refusing the combinations that cannot hold', () => {
    expect(putCondition({})).toEqual({ kind: 'always' });
    expect(putCondition({ add: true })).toEqual({ kind: 'add' });
    expect(putCondition({ cas: 12 })).toEqual({ kind: 'cas', cas: '12' });
    expect(() => putCondition({ add: true, replace: true })).toThrow('add and replace cannot both be true');
    expect(() => putCondition({ add: true, cas: 1 })).toThrow(/cas cannot be combined with add/);
    expect(() => putCondition({ cas: 0 })).toThrow(/cas must be a positive integer/);
  });
});

describe('cache items: values, keys and expiry', () => {
  it('increments integers in the 64-bit range and refuses what is not one', async () => {
    const cache = store();
    expect(await cache.increment('p1', 'n', 'count', 5, ROOMY)).toBe('5');
    expect(await cache.increment('p1', 'n', 'count', -7, ROOMY)).toBe('-2');
    await cache.put('p1', 'n', 'big', { ...item(0), json: '9223372036854775807' }, ROOMY);
    await expect(cache.increment('p1', 'n', 'big', 1, ROOMY)).rejects.toMatchObject({
      statusCode: 400,
      message: 'Cannot increment: the result would overflow the 64-bit signed integer range',
    });
    await cache.put('p1', 'n', 'word', item('ten'), ROOMY);
    await expect(cache.increment('p1', 'n', 'word', 1, ROOMY)).rejects.toMatchObject({
      message: 'Cannot increment or decrement non-numeric value',
    });
    expect((await cache.get('p1', 'n', 'big'))!.json).toBe('9223372036854775807');
  });

  it('sizes a string by its own UTF-8 bytes and anything else by its JSON, and bounds keys', () => {
    expect(encodeValue('ééé', 6)).toBe('"ééé"');
    expect(() => encodeValue('éééé', 6)).toThrow('value is 8 bytes; the limit is 6 bytes');
    expect(() => encodeValue({ a: 1 }, 6)).toThrow('value is 7 bytes; the limit is 6 bytes');
    expect(() => encodeValue(null, 6)).toThrow('value must not be null');
    expect(() => checkItemKey('k'.repeat(MAX_KEY_BYTES))).not.toThrow();
    expect(() => checkItemKey('k'.repeat(MAX_KEY_BYTES + 1))).toThrow(`key must be at most ${MAX_KEY_BYTES} bytes`);
    expect(() => checkItemKey('')).toThrow('key must not be empty');
  });

  it('an item expires when the scripts clock passes expires_in, and the cache stays with size 0', async () => {
    const cache = store();
    await cache.put('p1', 'exp', 'short', item('soon', { expiresIn: 10 }), ROOMY);
    expect(await cache.size('p1', 'exp')).toBe(1);
    scriptClock.advance(11_000);
    expect(await cache.get('p1', 'exp', 'short')).toBeNull();
    expect(await cache.size('p1', 'exp')).toBe(0);
    expect(await cache.listCaches('p1', 0)).toContain('exp');
  });

  it('clears a cache but keeps it; deletes it with its items; unknown caches answer null/false', async () => {
    const cache = store();
    await cache.put('p2', 'gone', 'a', item(1), ROOMY);
    expect(await cache.clear('p2', 'gone')).toBe(true);
    expect(await cache.size('p2', 'gone')).toBe(0);
    expect(await cache.deleteCache('p2', 'gone')).toBe(true);
    expect(await cache.size('p2', 'gone')).toBeNull();
    expect(await cache.clear('p2', 'never')).toBe(false);
    expect(await cache.deleteItem('p2', 'never', 'a')).toBe(false);
  });
});

describe('cache item meta', () => {
  it('flags: stored by put, kept by increment and by a kept add, reset by a put without them', async () => {
    const cache = store();
    await cache.put('p1', 'c', 'k', item(1, { flags: 4_294_967_295 }), ROOMY);
    expect(await cache.get('p1', 'c', 'k')).toMatchObject({ json: '1', flags: 4_294_967_295, expiresAt: null });
    await cache.increment('p1', 'c', 'k', 2, ROOMY);
    expect(await cache.get('p1', 'c', 'k')).toMatchObject({ json: '3', flags: 4_294_967_295 });
    await cache.put('p1', 'c', 'k', item(9, { condition: { kind: 'add' }, flags: 7 }), ROOMY);
    expect(await cache.get('p1', 'c', 'k')).toMatchObject({ json: '3', flags: 4_294_967_295 });
    await cache.put('p1', 'c', 'k', item(5), ROOMY);
    expect(await cache.get('p1', 'c', 'k')).toMatchObject({ json: '5', flags: 0 });
  });

  it('expiry: the time the item expires at, null when it never does', async () => {
    const cache = store();
    const before = Date.now() + scriptClock.offsetMs;
    await cache.put('p1', 'c', 'soon', item('x', { expiresIn: 60 }), ROOMY);
    const read = (await cache.get('p1', 'c', 'soon'))!;
    expect(read.expiresAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(read.expiresAt).toBeLessThan(before + 70_000);
  });

  it('flags leave no key behind when items, caches and their expiry go', async () => {
    const cache = store();
    const flagsKey = shared.keys.of('{cache:meta-p}', 'flags', 'c');
    await cache.put('meta-p', 'c', 'a', item('x', { flags: 1 }), ROOMY);
    await cache.put('meta-p', 'c', 'b', item('y', { flags: 2, expiresIn: 1 }), ROOMY);
    expect(await shared.redis.hlen(flagsKey)).toBe(2);
    await cache.deleteItem('meta-p', 'c', 'a');
    expect(await shared.redis.hlen(flagsKey)).toBe(1);
    scriptClock.advance(5000);
    expect(await cache.sweepCache('meta-p', 'c', 10)).toBe(1);
    expect(await shared.redis.exists(flagsKey)).toBe(0);
    await cache.put('meta-p', 'c', 'a', item('x', { flags: 1 }), ROOMY);
    await cache.clear('meta-p', 'c');
    expect(await shared.redis.exists(flagsKey)).toBe(0);
  });
});

// How each earlier release calls its scripts: its keys (values, cas and expiry are the same
// keys in every release) and the arguments after the cache name and item key.
const CALLS: Record<
  (typeof PREVIOUS_RELEASES)[number],
  { keys: (project: string) => string[]; put: Arg[]; more: Arg[]; clear: Arg[] }
> = {
  aa884e2: {
    keys: (project) => new CacheKeys(shared.keys).itemScriptKeys(project, 'c').slice(0, 8),
    put: ['', '', 0, 1_000_000, 100],
    more: [1_000_000, 100],
    clear: ['clear'],
  },
  f89fce9: {
    keys: (project) => {
      const tag = `{cache:${project}}`;
      const [values, cas, expiry] = new CacheKeys(shared.keys).cacheItems(project, 'c');
      const indexes = ['names', 'live', 'due', 'cas-sequence'].map((part) => shared.keys.of(tag, part));
      return [values!, cas!, expiry!, ...indexes];
    },
    put: ['', '', 0],
    more: [],
    clear: [],
  },
};

describe.each(PREVIOUS_RELEASES)('cache flags beside release %s', (release) => {
  const folders = release === 'f89fce9' ? ['src/cache', 'src/core'] : ['src/cache/lua', 'src/core/lua'];
  const folder = release === 'f89fce9' ? 'src/cache' : 'src/cache/lua';
  const script = (name: string) => releaseLua(release, folder, name, folders);
  const old = {
    put: script('put'),
    get: script('get'),
    increment: script('increment'),
    deleteItem: script('delete-item'),
    dropItems: script('drop-items'),
  };
  const calls = CALLS[release];
  const oldKeys = calls.keys;
  const oldPut = (project: string, key: string, json: string) =>
    old.put.run(shared.redis, oldKeys(project), ['c', key, json, ...calls.put]);

  it('reads an item this release wrote with flags, and what it re-puts or increments has no flags', async () => {
    const project = `old-${release}-a`;
    const cache = store();
    await cache.put(project, 'c', 'k', item(1, { flags: 12 }), ROOMY);
    const [json, cas] = (await old.get.run<[string, string]>(shared.redis, oldKeys(project).slice(0, 3), ['k']))!;
    expect(json).toBe('1');
    expect(Number(cas)).toBe((await cache.get(project, 'c', 'k'))!.cas);
    await old.increment.run(shared.redis, oldKeys(project), ['c', 'k', '1', ...calls.more]);
    expect(await cache.get(project, 'c', 'k')).toMatchObject({ json: '2', flags: 0 });
    await cache.put(project, 'c', 'k', item(1, { flags: 12 }), ROOMY);
    await oldPut(project, 'k', '"plain"');
    expect(await cache.get(project, 'c', 'k')).toMatchObject({ json: '"plain"', flags: 0 });
  });

  it("a key it deleted or cleared comes back without the old flags; this release's clear drops them", async () => {
    const project = `old-${release}-b`;
    const cache = store();
    await cache.put(project, 'c', 'k', item(1, { flags: 3 }), ROOMY);
    await old.deleteItem.run(shared.redis, oldKeys(project), ['c', 'k']);
    await oldPut(project, 'k', '"again"');
    expect(await cache.get(project, 'c', 'k')).toMatchObject({ json: '"again"', flags: 0 });
    await cache.put(project, 'c', 'j', item(1, { flags: 3 }), ROOMY);
    await old.dropItems.run(shared.redis, oldKeys(project), ['c', ...calls.clear]);
    await oldPut(project, 'j', '"fresh"');
    expect(await cache.get(project, 'c', 'j')).toMatchObject({ json: '"fresh"', flags: 0 });
    await cache.clear(project, 'c');
    expect(await shared.redis.exists(shared.keys.of(`{cache:${project}}`, 'flags', 'c'))).toBe(0);
  });
});
