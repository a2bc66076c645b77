import { afterEach, describe, expect, it, vi } from 'vitest';
import { RefreshAheadCache } from '../../src/core/refresh-ahead-cache.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A load whose calls are counted and answered by hand. */
function manualLoad() {
  const calls: { key: string; resolve: (value: string | undefined) => void; reject: (error: Error) => void }[] = [];
  const load = (key: string) =>
    new Promise<string | undefined>((resolve, reject) => calls.push({ key, resolve, reject }));
  return { calls, load };
}

const TTL = 1000;

describe('RefreshAheadCache', () => {
  it('shares one load among the reads that miss, then answers from the entry', async () => {
    const { calls, load } = manualLoad();
    const cache = new RefreshAheadCache(TTL, load);
    const reads = [cache.get('k'), cache.get('k'), cache.get('k')];
    expect(calls).toHaveLength(1);
    calls[0]!.resolve('v1');
    expect(await Promise.all(reads)).toEqual(['v1', 'v1', 'v1']);
    expect(cache.peek('k')).toBe('v1');
    expect(calls).toHaveLength(1);
  });

  it('refreshes a key read late in its life in the background, once, and never serves it past its ttl', async () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
    const { calls, load } = manualLoad();
    const cache = new RefreshAheadCache(TTL, load);
    const first = cache.get('k');
    calls[0]!.resolve('v1');
    await first;
    vi.setSystemTime(1_000_000 + TTL * 0.49);
    expect(cache.peek('k')).toBe('v1');
    expect(calls).toHaveLength(1); // not due yet: refreshes start from half the ttl
    vi.setSystemTime(1_000_000 + TTL * 0.8);
    expect(cache.peek('k')).toBe('v1'); // due: answered from the entry while the refresh runs
    expect(cache.peek('k')).toBe('v1');
    expect(calls).toHaveLength(2); // one refresh, however many reads
    vi.setSystemTime(1_000_000 + TTL);
    expect(cache.peek('k')).toBeUndefined(); // expired: the refresh still running is waited for
    const waiting = cache.get('k');
    expect(calls).toHaveLength(2);
    calls[1]!.resolve('v2');
    expect(await waiting).toBe('v2');
    // The refreshed entry lives from when its load began.
    vi.setSystemTime(1_000_000 + TTL * 1.79);
    expect(cache.peek('k')).toBe('v2');
    vi.setSystemTime(1_000_000 + TTL * 1.8);
    expect(cache.peek('k')).toBeUndefined();
  });

  it('spreads the refreshes of entries loaded together over a part of their life', async () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
    let loads = 0;
    const cache = new RefreshAheadCache(TTL, async (key) => {
      loads += 1;
      return key;
    });
    const keys = Array.from({ length: 200 }, (_, i) => `k${i}`);
    await Promise.all(keys.map((key) => cache.get(key)));
    const due = (share: number) => {
      vi.setSystemTime(1_000_000 + TTL * share);
      const before = loads;
      for (const key of keys) cache.peek(key);
      return loads - before;
    };
    expect(due(0.49)).toBe(0);
    const early = due(0.6);
    expect(early).toBeGreaterThan(0);
    expect(early).toBeLessThan(keys.length);
    expect(early + due(0.81)).toBe(keys.length);
  });

  it('drops an entry whose refresh fails or finds nothing: the next read loads it', async () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
    const { calls, load } = manualLoad();
    const cache = new RefreshAheadCache(TTL, load);
    for (const key of ['gone', 'failing']) {
      const read = cache.get(key);
      calls.at(-1)!.resolve(`${key}-v1`);
      await read;
    }
    vi.setSystemTime(1_000_000 + TTL * 0.85);
    expect(cache.peek('gone')).toBe('gone-v1');
    expect(cache.peek('failing')).toBe('failing-v1');
    calls[2]!.resolve(undefined);
    calls[3]!.reject(new Error('Redis went away'));
    await vi.waitFor(() => {
      expect(cache.peek('gone')).toBeUndefined();
      expect(cache.peek('failing')).toBeUndefined();
    });
    const again = cache.get('failing');
    calls[4]!.reject(new Error('still away'));
    await expect(again).rejects.toThrow('still away');
  });

  it('stores nothing a load read before an invalidation, and a read after it waits for a new load', async () => {
    const { calls, load } = manualLoad();
    const cache = new RefreshAheadCache(TTL, load);
    const before = cache.get('k');
    cache.delete('k'); // e.g. the token was revoked while it was being looked up
    const after = cache.get('k');
    expect(calls).toHaveLength(2);
    calls[0]!.resolve('stale');
    expect(await before).toBe('stale');
    expect(cache.peek('k')).toBeUndefined();
    calls[1]!.resolve('fresh');
    expect(await after).toBe('fresh');
    expect(cache.peek('k')).toBe('fresh');
    cache.deleteWhere((value) => value === 'fresh');
    expect(cache.peek('k')).toBeUndefined();
  });

  it('keeps nothing with a ttl of 0, updates a cached value in place, and caches a value read apart', async () => {
    const zero = new RefreshAheadCache(0, async (key) => key);
    expect(await zero.get('k')).toBe('k');
    expect(zero.peek('k')).toBeUndefined();
    const cache = new RefreshAheadCache<number>(TTL, async () => 1);
    await cache.get('n');
    cache.update('n', (n) => n + 41);
    cache.update('missing', (n) => n + 1);
    expect(cache.peek('n')).toBe(42);
    expect(cache.peek('missing')).toBeUndefined();
    cache.set('read apart', 7); // e.g. a fresh read after a refusal
    expect(cache.peek('read apart')).toBe(7);
  });
});
