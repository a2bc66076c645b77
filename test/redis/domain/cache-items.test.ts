import { describe, expect, it } from 'vitest';
import { CacheStore, type CacheQuotas, type NewItem } from '../../../src/cache/cache-store.js';
import { checkItemKey, encodeValue, MAX_KEY_BYTES, putCondition } from '../../../src/cache/item-rules.js';
import { scriptClock } from '../../../src/core/lua.js';
import { useSharedRedis } from '../../helpers/shared-redis.js';

// The cache's item rules, straight against src/ on the worker's shared Redis (no HTTP).
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
