import { describe, expect, it } from 'vitest';
import { CacheStore, type CacheQuotas, type NewItem } from '../../../src/cache/cache-store.js';
import { CacheKeys } from '../../../src/cache/keys.js';
import { encodeValue } from '../../../src/cache/item-rules.js';
import { scriptClock } from '../../../src/core/lua.js';
import { useSharedRedis } from '../../helpers/shared-redis.js';
import { PREVIOUS_RELEASES, releaseLua } from '../../helpers/release-lua.js';

type Arg = string | number;

// Item meta (memcached flags, expiry) against src/ on the worker's shared Redis, and beside the
// previous releases' own scripts, which know nothing of flags.
const shared = useSharedRedis();
const store = () => new CacheStore(shared.redis, shared.keys);
const ROOMY: CacheQuotas = { storedBytes: 1_000_000, caches: 100 };
const item = (value: unknown, more: Partial<NewItem> = {}): NewItem => ({
  json: encodeValue(value, 1_000_000),
  expiresIn: 0,
  condition: { kind: 'always' },
  ...more,
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
    const flagsKey = shared.keys.of('{cache:p2}', 'flags', 'c');
    await cache.put('p2', 'c', 'a', item('x', { flags: 1 }), ROOMY);
    await cache.put('p2', 'c', 'b', item('y', { flags: 2, expiresIn: 1 }), ROOMY);
    expect(await shared.redis.hlen(flagsKey)).toBe(2);
    await cache.deleteItem('p2', 'c', 'a');
    expect(await shared.redis.hlen(flagsKey)).toBe(1);
    scriptClock.offsetMs = 5000;
    try {
      expect(await cache.sweepCache('p2', 'c', 10)).toBe(1);
    } finally {
      scriptClock.offsetMs = 0;
    }
    expect(await shared.redis.exists(flagsKey)).toBe(0);
    await cache.put('p2', 'c', 'a', item('x', { flags: 1 }), ROOMY);
    await cache.clear('p2', 'c');
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
